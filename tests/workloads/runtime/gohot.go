// SPDX-License-Identifier: GPL-2.0
// Two hot functions run by one goroutine (not main's), hotA about 70 % of
// the work, for SECONDS; prints the split it measured. Built by the Go
// toolchain with default flags: Go keeps frame pointers on amd64.
// Usage: gohot SECONDS
package main

import (
	"fmt"
	"os"
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

//go:noinline
func worker(secs float64, done chan<- [2]time.Duration) {
	var ta, tb time.Duration
	end := time.Now().Add(time.Duration(secs * 1e9))
	for time.Now().Before(end) {
		t0 := time.Now()
		sink += hotA(70000)
		t1 := time.Now()
		sink += hotB(30000)
		t2 := time.Now()
		ta += t1.Sub(t0)
		tb += t2.Sub(t1)
	}
	done <- [2]time.Duration{ta, tb}
}

func main() {
	secs, err := strconv.ParseFloat(os.Args[1], 64)
	if err != nil {
		fmt.Fprintln(os.Stderr, "usage: gohot SECONDS")
		os.Exit(2)
	}
	done := make(chan [2]time.Duration)
	go worker(secs, done)
	t := <-done
	fmt.Printf("split %.4f sink %d\n", float64(t[0])/float64(t[0]+t[1]), sink&1)
}
