// SPDX-License-Identifier: GPL-2.0
// Two hot methods, hotA about 70 % of the work and hotB the rest, called
// in turn for SECONDS of the program's own clock. Each round calls hotA
// A_CHUNKS times and hotB B_CHUNKS times, CHUNK iterations each, and times
// every call; the split it prints is A_CHUNKS times the median of hotA's
// call times against B_CHUNKS times hotB's. Why medians of short calls: a
// host that stalls the guest puts the stall in one call's wall time, which
// a sampling profiler counts once at most, so sums of wall time weigh
// stalls a profiler does not see; and a call much longer than the host's
// time slice holds a stall in most of its runs, which biases even its
// median (hotA's more than hotB's). Over the whole run ("split"), and from
// the line "warm" on ("split_warm", for a profiler attached after it), so a
// test can hold a profiler's split against the program's own. With
// MARK_FILE, "split_warm" counts from when that file exists instead (the
// test creates it once its profilers run: a host that stalls the guest
// before they do must not weigh in the program's figure alone).
// PADDING: each hot method starts with a block no call takes, which makes
// its bytecode longer than HotSpot inlines into a hot caller (FreqInlineSize,
// 325 bytes; C1 inlines 35): a JVM started without any option keeps hotA
// and hotB out of main, as frames of their own, like the tests that ask for
// it with -XX:CompileCommand=dontinline.
// CHUNK (default 5000) sets the iterations per call: a test that holds the
// hot methods' share of all samples (the program's own timing, bookkeeping
// and final sort count against it) takes longer calls.
// Usage: java Hot SECONDS [WARM_SECONDS [MARK_FILE|- [CHUNK]]]
public class Hot {
	static final int A_CHUNKS = 70, B_CHUNKS = 30;
	static int CHUNK = 5000;
	static long sink;

	static long hotA(long n) {
		long x = sink | 1;
		if (n < 0) {
			// never taken: see PADDING above
			x = x * 2177342782468422678L + 0; x ^= x >>> 7;
			x = x * 2177342782468422680L + 1; x ^= x >>> 8;
			x = x * 2177342782468422682L + 2; x ^= x >>> 9;
			x = x * 2177342782468422684L + 3; x ^= x >>> 10;
			x = x * 2177342782468422686L + 4; x ^= x >>> 11;
			x = x * 2177342782468422688L + 5; x ^= x >>> 12;
			x = x * 2177342782468422690L + 6; x ^= x >>> 13;
			x = x * 2177342782468422692L + 7; x ^= x >>> 14;
			x = x * 2177342782468422694L + 8; x ^= x >>> 15;
			x = x * 2177342782468422696L + 9; x ^= x >>> 16;
			x = x * 2177342782468422698L + 10; x ^= x >>> 17;
			x = x * 2177342782468422700L + 11; x ^= x >>> 18;
			x = x * 2177342782468422702L + 12; x ^= x >>> 19;
			x = x * 2177342782468422704L + 13; x ^= x >>> 20;
			x = x * 2177342782468422706L + 14; x ^= x >>> 21;
			x = x * 2177342782468422708L + 15; x ^= x >>> 22;
			x = x * 2177342782468422710L + 16; x ^= x >>> 23;
			x = x * 2177342782468422712L + 17; x ^= x >>> 24;
			x = x * 2177342782468422714L + 18; x ^= x >>> 25;
			x = x * 2177342782468422716L + 19; x ^= x >>> 26;
			x = x * 2177342782468422718L + 20; x ^= x >>> 27;
			x = x * 2177342782468422720L + 21; x ^= x >>> 28;
			x = x * 2177342782468422722L + 22; x ^= x >>> 29;
			x = x * 2177342782468422724L + 23; x ^= x >>> 7;
		}
		for (long i = 0; i < n; i++) {
			x = x * 6364136223846793005L + 1442695040888963407L;
			x ^= x >>> 29;
		}
		return x;
	}

	static long hotB(long n) {
		long x = sink | 3;
		if (n < 0) {
			// never taken: see PADDING above
			x = x * 2177342782468422678L + 0; x ^= x >>> 7;
			x = x * 2177342782468422680L + 1; x ^= x >>> 8;
			x = x * 2177342782468422682L + 2; x ^= x >>> 9;
			x = x * 2177342782468422684L + 3; x ^= x >>> 10;
			x = x * 2177342782468422686L + 4; x ^= x >>> 11;
			x = x * 2177342782468422688L + 5; x ^= x >>> 12;
			x = x * 2177342782468422690L + 6; x ^= x >>> 13;
			x = x * 2177342782468422692L + 7; x ^= x >>> 14;
			x = x * 2177342782468422694L + 8; x ^= x >>> 15;
			x = x * 2177342782468422696L + 9; x ^= x >>> 16;
			x = x * 2177342782468422698L + 10; x ^= x >>> 17;
			x = x * 2177342782468422700L + 11; x ^= x >>> 18;
			x = x * 2177342782468422702L + 12; x ^= x >>> 19;
			x = x * 2177342782468422704L + 13; x ^= x >>> 20;
			x = x * 2177342782468422706L + 14; x ^= x >>> 21;
			x = x * 2177342782468422708L + 15; x ^= x >>> 22;
			x = x * 2177342782468422710L + 16; x ^= x >>> 23;
			x = x * 2177342782468422712L + 17; x ^= x >>> 24;
			x = x * 2177342782468422714L + 18; x ^= x >>> 25;
			x = x * 2177342782468422716L + 19; x ^= x >>> 26;
			x = x * 2177342782468422718L + 20; x ^= x >>> 27;
			x = x * 2177342782468422720L + 21; x ^= x >>> 28;
			x = x * 2177342782468422722L + 22; x ^= x >>> 29;
			x = x * 2177342782468422724L + 23; x ^= x >>> 7;
		}
		for (long i = 0; i < n; i++) {
			x = x * 2862933555777941757L + 3037000493L;
			x ^= x >>> 31;
		}
		return x;
	}

	static long[] grow(long[] a, int n) {
		return n <= a.length ? a : java.util.Arrays.copyOf(a, Math.max(n, a.length * 2));
	}

	static double median(long[] a, int from, int to) {
		long[] c = java.util.Arrays.copyOfRange(a, from, to);

		java.util.Arrays.sort(c);
		return c.length == 0 ? 0 : c[c.length / 2];
	}

	static double split(long[] ta, long[] tb, int from, int to) {
		double a = A_CHUNKS * median(ta, from * A_CHUNKS, to * A_CHUNKS);
		double b = B_CHUNKS * median(tb, from * B_CHUNKS, to * B_CHUNKS);

		return a + b > 0 ? a / (a + b) : 0;
	}

	public static void main(String[] args) {
		double secs = Double.parseDouble(args[0]);
		double warmSecs = args.length > 1 ? Double.parseDouble(args[1]) : 0;
		long start = System.nanoTime();
		long end = start + (long) (secs * 1e9), warmAt = start + (long) (warmSecs * 1e9);
		long[] ta = new long[1 << 16], tb = new long[1 << 16];
		int n = 0, warmFrom = -1;
		java.io.File mark = args.length > 2 && !args[2].equals("-") ? new java.io.File(args[2]) : null;

		if (args.length > 3)
			CHUNK = Integer.parseInt(args[3]);
		long nextLook = 0;

		System.out.println("pid " + ProcessHandle.current().pid());
		if (warmSecs <= 0) {
			warmFrom = 0; // no warm-up asked: warm from the first call
			System.out.println("warm");
		}
		for (;;) {
			long t = System.nanoTime();

			if (t >= end)
				break;
			ta = grow(ta, (n + 1) * A_CHUNKS);
			tb = grow(tb, (n + 1) * B_CHUNKS);
			for (int c = 0; c < A_CHUNKS; c++) {
				sink += hotA(CHUNK);
				long u = System.nanoTime();
				ta[n * A_CHUNKS + c] = u - t;
				t = u;
			}
			for (int c = 0; c < B_CHUNKS; c++) {
				sink += hotB(CHUNK);
				long u = System.nanoTime();
				tb[n * B_CHUNKS + c] = u - t;
				t = u;
			}
			long t2 = t;
			n++;
			if (warmFrom >= 0 && mark != null && t2 >= nextLook) {
				nextLook = t2 + 100000000L;
				if (mark.exists()) {
					mark = null;
					warmFrom = n;
				}
			}
			if (warmFrom < 0 && t2 >= warmAt) {
				warmFrom = n;
				System.out.println("warm");
			}
		}
		if (warmFrom < 0)
			warmFrom = n;
		// one sort of the timings when both figures are over the same calls
		double whole = split(ta, tb, 0, n);
		double warm = warmFrom == 0 ? whole : split(ta, tb, warmFrom, n);
		System.out.printf("split %.4f split_warm %.4f calls %d secs %.2f sink %d%n", whole,
				  warm, n, (System.nanoTime() - start) / 1e9, sink & 1);
	}
}
