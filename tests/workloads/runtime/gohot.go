// SPDX-License-Identifier: GPL-2.0
// Two hot functions run by one goroutine (not main's), hotA about 70 % of
// the work, for SECONDS; prints the split it measured the way Hot.java
// does (medians of short calls, each timed). Built by the Go
// toolchain with default flags: Go keeps frame pointers on amd64.
// Usage: gohot SECONDS
package main

import (
	"fmt"
	"os"
	"sort"
	"strconv"
	"time"
)

var sink uint64

//go:noinline
func hotA(n int) uint64 {
	x := sink | 1
	for i := 0; i < n; i++ {
		x = x*6364136223846793005 + 1442695040888963407
		x ^= x >> 29
	}
	return x
}

//go:noinline
func hotB(n int) uint64 {
	x := sink | 3
	for i := 0; i < n; i++ {
		x = x*2862933555777941757 + 3037000493
		x ^= x >> 31
	}
	return x
}

const chunk, aChunks, bChunks = 10000, 7, 3

type durations []time.Duration

func (d durations) Len() int           { return len(d) }
func (d durations) Less(i, j int) bool { return d[i] < d[j] }
func (d durations) Swap(i, j int)      { d[i], d[j] = d[j], d[i] }

func median(a durations) time.Duration {
	if len(a) == 0 {
		return 0
	}
	sort.Sort(a)
	return a[len(a)/2]
}

//go:noinline
func worker(secs float64, done chan<- float64) {
	var ta, tb durations
	end := time.Now().Add(time.Duration(secs * 1e9))
	for t := time.Now(); t.Before(end); {
		for c := 0; c < aChunks; c++ {
			sink += hotA(chunk)
			u := time.Now()
			ta = append(ta, u.Sub(t))
			t = u
		}
		for c := 0; c < bChunks; c++ {
			sink += hotB(chunk)
			u := time.Now()
			tb = append(tb, u.Sub(t))
			t = u
		}
	}
	a, b := float64(aChunks*median(ta)), float64(bChunks*median(tb))
	done <- a / (a + b)
}

func main() {
	secs, err := strconv.ParseFloat(os.Args[1], 64)
	if err != nil {
		fmt.Fprintln(os.Stderr, "usage: gohot SECONDS")
		os.Exit(2)
	}
	done := make(chan float64)
	go worker(secs, done)
	fmt.Printf("split %.4f sink %d\n", <-done, sink&1)
}
