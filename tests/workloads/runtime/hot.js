// SPDX-License-Identifier: GPL-2.0
// Two hot functions, hotA about 70 % of the work and hotB the rest, called
// in turn for SECONDS of the program's own clock; prints the split it
// measured from the median time of each function's calls (see Hot.java)
// over the whole run ("split") and from the line "warm" on
// ("split_warm"; from when MARK_FILE exists, if given), as Hot.java does.
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

const secs = Number(process.argv[2]);
const warmSecs = Number(process.argv[3] || 0);
const now = () => process.hrtime.bigint();
const start = now();
const end = start + BigInt(Math.round(secs * 1e9));
const warmAt = start + BigInt(Math.round(warmSecs * 1e9));
const ta = [], tb = [];
let warmFrom = -1, mark = process.argv[4] || null, nextLook = 0n;

console.log(`pid ${process.pid}`);
while (now() < end) {
	const t0 = now();
	sink ^= hotA(700000);
	const t1 = now();
	sink ^= hotB(300000);
	const t2 = now();
	ta.push(Number(t1 - t0));
	tb.push(Number(t2 - t1));
	if (warmFrom >= 0 && mark && t2 >= nextLook) {
		nextLook = t2 + 100000000n;
		if (fs.existsSync(mark)) {
			mark = null;
			warmFrom = ta.length;
		}
	}
	if (warmFrom < 0 && t2 >= warmAt) {
		warmFrom = ta.length;
		console.log('warm');
	}
}
if (warmFrom < 0)
	warmFrom = ta.length;
const median = (a) => {
	const c = a.slice().sort((x, y) => x - y);
	return c.length ? c[c.length >> 1] : 0;
};
const split = (from) => {
	const a = median(ta.slice(from)), b = median(tb.slice(from));
	return a + b > 0 ? a / (a + b) : 0;
};
console.log(`split ${split(0).toFixed(4)} split_warm ${split(warmFrom).toFixed(4)} ` +
	    `calls ${ta.length} secs ${(Number(now() - start) / 1e9).toFixed(2)} sink ${sink & 1}`);
