// SPDX-License-Identifier: GPL-2.0
// Two hot functions, hotA about 70 % of the work and hotB the rest, called
// in turn for SECONDS of the program's own clock; prints the split it
// measured (see Hot.java for why it is measured this way) over the whole
// run ("split") and from the line "warm" on ("split_warm"; from when
// MARK_FILE exists, if given), as Hot.java does.
// Usage: node hot.js SECONDS [WARM_SECONDS [MARK_FILE]]
'use strict';

const fs = require('fs');

let sink = 1;

function hotA(n) {
	let x = sink | 1;
	for (let i = 0; i < n; i++) {
		x = (Math.imul(x, 1664525) + 1013904223) | 0;
		x ^= x >>> 13;
	}
	return x;
}

function hotB(n) {
	let x = sink | 3;
	for (let i = 0; i < n; i++) {
		x = (Math.imul(x, 22695477) + 1) | 0;
		x ^= x >>> 15;
	}
	return x;
}

// Each round calls hotA A_CHUNKS times and hotB B_CHUNKS times with CHUNK
// iterations each and times every call.
const CHUNK = 10000, A_CHUNKS = 70, B_CHUNKS = 30;
const secs = Number(process.argv[2]);
const warmSecs = Number(process.argv[3] || 0);
const now = () => process.hrtime.bigint();
const start = now();
const end = start + BigInt(Math.round(secs * 1e9));
const warmAt = start + BigInt(Math.round(warmSecs * 1e9));
const ta = [], tb = [];
let rounds = 0, warmFrom = -1, mark = process.argv[4] || null, nextLook = 0n;

console.log(`pid ${process.pid}`);
for (;;) {
	let t = now();
	if (t >= end)
		break;
	for (let c = 0; c < A_CHUNKS; c++) {
		sink ^= hotA(CHUNK);
		const u = now();
		ta.push(Number(u - t));
		t = u;
	}
	for (let c = 0; c < B_CHUNKS; c++) {
		sink ^= hotB(CHUNK);
		const u = now();
		tb.push(Number(u - t));
		t = u;
	}
	rounds++;
	if (warmFrom >= 0 && mark && t >= nextLook) {
		nextLook = t + 100000000n;
		if (fs.existsSync(mark)) {
			mark = null;
			warmFrom = rounds;
		}
	}
	if (warmFrom < 0 && t >= warmAt) {
		warmFrom = rounds;
		console.log('warm');
	}
}
if (warmFrom < 0)
	warmFrom = rounds;
const median = (a) => {
	const c = Float64Array.from(a).sort();
	return c.length ? c[c.length >> 1] : 0;
};
const split = (from) => {
	const a = A_CHUNKS * median(ta.slice(from * A_CHUNKS));
	const b = B_CHUNKS * median(tb.slice(from * B_CHUNKS));
	return a + b > 0 ? a / (a + b) : 0;
};
console.log(`split ${split(0).toFixed(4)} split_warm ${split(warmFrom).toFixed(4)} ` +
	    `calls ${rounds} secs ${(Number(now() - start) / 1e9).toFixed(2)} sink ${sink & 1}`);
