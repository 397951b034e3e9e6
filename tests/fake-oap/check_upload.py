#!/usr/bin/python3
"""Checks what the fake OAP recorded for one task against the protocol notes.

usage: check_upload.py RECORD.jsonl AGENT.log [--target ON_CPU|OFF_CPU]
       [--symbols a,b,c] [--max-first-upload S] [--tolerance PCT]
       [--allow-dropped] [--at-most-once]

Prints the measured numbers and exits 0 when every check holds. Only streams
that completed (stream_end ok) count as delivered, except for --at-most-once:
there every recorded message counts as stored (the OAP stores each message of
a stream as it arrives, also when the stream breaks later), no message may be
stored twice, and what the agent handed over must be delivered or counted as
dropped or unconfirmed: sent <= stored <= sent + unconfirmed and sent +
unconfirmed + dropped == handed over.
"""
import argparse
import base64
import hashlib
import json
import re
import sys


def process_id(service, instance, process):
    sid = base64.b64encode((service or '_blank')[:70].encode()).decode() + '.1'
    iid = sid + '_' + base64.b64encode((instance or '_blank')[:70].encode()).decode()
    return hashlib.sha256(((process or '_blank') + '_' + iid).encode()).hexdigest()


def check_at_most_once(task, by_stream, kinds, uploaded, fails, log):
    """Per message: stored at most once; per count: delivered or counted."""
    seen = {}
    delivered = 0
    for s in sorted(by_stream):
        ms = sorted(by_stream[s], key=lambda m: m['index'])
        t = ms[0]['msg'].get('task')
        if not t:
            fails.append('stream %s: the first message has no task metadata' % s)
            continue
        if t.get('taskId') != task['task_id']:
            continue
        for m in ms:
            d = m['msg'].get(kinds) or {}
            key = (t.get('currentTime'), json.dumps(d.get('stacks', []), sort_keys=True))
            seen[key] = seen.get(key, 0) + 1
            delivered += int(d.get('dumpCount' if kinds == 'onCPU' else 'switchCount', 0))
    dups = sum(n - 1 for n in seen.values() if n > 1)
    m = re.search(r'agent exit: .* (\d+) batches sent \((\d+) messages, count (\d+)\), (\d+) '
                  r'dropped \((\d+) messages, count (\d+), \d+ bytes\), (\d+) unconfirmed '
                  r'\((\d+) messages, count (\d+)\), (\d+) pending', log)
    if not m:
        fails.append('no exit statistics with unconfirmed counts in the agent log')
        return
    sent, dropped, unconf, pending = (int(m.group(i)) for i in (3, 6, 9, 10))
    print('at most once: %d messages stored, %d stored twice; count handed over %d = sent %d'
          ' + unconfirmed %d + dropped %d (pending %d batches); stored %d' % (
              len(seen), dups, uploaded, sent, unconf, dropped, pending, delivered))
    print('unconfirmed: %d stored, %d lost (counted)' % (delivered - sent,
                                                         sent + unconf - delivered))
    if dups:
        fails.append('%d messages stored twice' % dups)
    if sent + unconf + dropped != uploaded:
        fails.append('sent %d + unconfirmed %d + dropped %d != %d handed over' % (
            sent, unconf, dropped, uploaded))
    if delivered < sent:
        fails.append('stored %d < confirmed sent %d' % (delivered, sent))
    if delivered > sent + unconf:
        fails.append('stored %d > sent %d + unconfirmed %d' % (delivered, sent, unconf))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('record')
    ap.add_argument('log')
    ap.add_argument('--target', default='ON_CPU')
    ap.add_argument('--symbols', default='')
    ap.add_argument('--leaf', default='', help='the user leaf most samples must start with')
    ap.add_argument('--max-first-upload', type=float, default=12.0)
    ap.add_argument('--tolerance', type=float, default=2.0)
    ap.add_argument('--allow-dropped', action='store_true')
    ap.add_argument('--at-most-once', action='store_true')
    a = ap.parse_args()
    # The agent has stopped: its log is whole, read once.
    log = open(a.log, errors='replace').read()
    if a.at_most_once:
        a.allow_dropped = True
    fails = []

    recs = [json.loads(l) for l in open(a.record) if l.strip()]
    tasks = [r for r in recs if r.get('event') == 'task_created']
    if not tasks:
        print('FAIL: the fake OAP created no task')
        return 1
    task = tasks[0]
    print('task %s %s on pid %d, start %d, %d s' % (task['task_id'][:12], task['target'],
                                                   task['pid'], task['start'], task['duration']))

    # registration: the process id the OAP formula gives for the entity we sent
    reg = None
    for r in recs:
        if r.get('method') == 'reportProcesses':
            for p in r['msg'].get('processes', []):
                h = p.get('hostProcess')
                if h and h.get('pid') == task['pid']:
                    reg = h
    if not reg:
        fails.append('the workload pid %d was never reported' % task['pid'])
    else:
        e = reg['entity']
        want = process_id(e.get('serviceName'), e.get('instanceName'), e.get('processName'))
        props = {kv['key']: kv.get('value', '') for kv in reg.get('properties', [])}
        print('registered: layer %s service %r instance %r process %r, props %s' % (
            e.get('layer'), e.get('serviceName'), e.get('instanceName'), e.get('processName'),
            sorted(props)))
        if want != task['process_id']:
            fails.append('process id %s is not the formula\'s %s' % (task['process_id'], want))
        for k in ('host_ip', 'pid', 'command_line', 'support_ebpf_profiling'):
            if k not in props:
                fails.append('property %s missing' % k)
        if ('registered as process %s' % want) not in log:
            fails.append('the agent log does not show process id %s' % want)

    # uploads
    ends = {r['stream']: r for r in recs if r.get('event') == 'stream_end'}
    msgs = [r for r in recs if r.get('method') == 'collectProfilingData' and 'event' not in r]
    by_stream = {}
    for m in msgs:
        by_stream.setdefault(m['stream'], []).append(m)
    delivered = [s for s in sorted(by_stream) if ends.get(s, {}).get('ok')]
    print('streams: %d recorded, %d completed' % (len(by_stream), len(delivered)))
    first_time = None
    start_times = set()
    total = weight = 0
    leaf_hits = 0
    names = set()
    kinds = 'onCPU' if a.target == 'ON_CPU' else 'offCPU'
    for s in delivered:
        ms = sorted(by_stream[s], key=lambda m: m['index'])
        first = ms[0]['msg']
        if 'task' not in first:
            fails.append('stream %s: the first message has no task metadata' % s)
            continue
        t = first['task']
        if t.get('taskId') != task['task_id'] or t.get('processId') != task['process_id']:
            fails.append('stream %s: task metadata %s/%s is not the task\'s' % (
                s, t.get('taskId'), t.get('processId')))
        start_times.add(t.get('profilingStartTime'))
        if first_time is None:
            first_time = ms[0]['time']
        seen = set()
        for m in ms:
            d = m['msg'].get(kinds)
            if d is None:
                fails.append('stream %s: a message without %s' % (s, kinds))
                continue
            stacks = d.get('stacks', [])
            types = [st.get('stackType', 'PROCESS_KERNEL_SPACE') for st in stacks]
            if len(stacks) == 0 or len(stacks) > 2 or len(set(types)) != len(types):
                fails.append('stream %s: stacks %s: want at most one per type' % (s, types))
            key = json.dumps(stacks, sort_keys=True)
            if key in seen:
                fails.append('stream %s: the same stack twice (not merged)' % s)
            seen.add(key)
            c = int(d.get('dumpCount' if kinds == 'onCPU' else 'switchCount', 0))
            total += c
            weight += int(d.get('duration', 0))
            for st in stacks:
                syms = st.get('stackSymbols', [])
                names.update(syms)
                if st.get('stackType') == 'PROCESS_USER_SPACE' and syms and a.leaf and \
                        syms[0] == a.leaf:
                    leaf_hits += c
    if len(start_times) > 1:
        fails.append('profilingStartTime changed across flushes: %s' % sorted(start_times))
    if first_time is None:
        fails.append('no completed upload')
    else:
        lag = first_time - task['start'] / 1000.0
        # The flush worker's part of the lag is CPU work (the warm-up that
        # symbolizes the process's files, which the first flush waits for,
        # then the flush's own symbolizing): on a starved guest it takes as
        # long as the CPU it gets. The limit holds the rest: the task's
        # pickup, the early flush's schedule and the send.
        wait = re.search(r'flushes: .*longest wait (\d+) ms', log)
        sym = re.search(r'task %s: flush: .* symbolized in (\d+) ms' % task['task_id'], log)
        work = ((int(wait.group(1)) if wait else 0) + (int(sym.group(1)) if sym else 0)) / 1000.0
        print('first upload %.1f s after the task was created; the flush worker\'s part %.1f s '
              '(longest wait %s ms, first flush symbolized in %s ms)'
              % (lag, work, wait.group(1) if wait else '-', sym.group(1) if sym else '-'))
        if lag - work > a.max_first_upload:
            fails.append('first upload after %.1f s, %.1f s without the flush worker\'s part '
                         '(> %.0f s)' % (lag, lag - work, a.max_first_upload))
    for sym in filter(None, a.symbols.split(',')):
        if sym not in names:
            fails.append('symbol %s not among the uploaded frames' % sym)
    if a.leaf:
        pct = 100.0 * leaf_hits / total if total else 0
        print('user stacks starting (leaf first) with %s: %.1f %% of the count' % (a.leaf, pct))
        if pct < 50:
            fails.append('only %.1f %% of the count has %s as the first user frame' % (pct, a.leaf))

    # against the module's own count, from the agent's task summary
    m = re.search(r'task %s \S+ pid \d+ finished after [\d.]+ s: (\d+) samples read, module (\d+) '
                  r'samples (\d+) lost; uploaded count (\d+) duration (\d+)' % task['task_id'],
                  log)
    if not m:
        fails.append('no task summary in the agent log')
    else:
        read, module, lost, uploaded, dur = map(int, m.groups())
        print('module samples %d (lost %d), read %d, handed to the queue %d, delivered %d'
              '%s' % (module, lost, read, uploaded, total,
                      ', off-CPU duration %d ns' % weight if kinds == 'offCPU' else ''))
        ref = module if module else read
        diff = 100.0 * abs(total - ref) / ref if ref else 100
        print('delivered vs module: %.2f %% apart' % diff)
        if diff > a.tolerance and not (a.allow_dropped and total < ref):
            fails.append('delivered count %d is %.2f %% from the module\'s %d' % (total, diff, ref))
        if a.at_most_once:
            check_at_most_once(task, by_stream, kinds, uploaded, fails, log)
        elif a.allow_dropped:
            dm = re.search(r'agent exit: .* (\d+) dropped \((\d+) messages, count (\d+)', open(
                a.log, errors='replace').read())
            dropped = int(dm.group(3)) if dm else 0
            print('dropped and counted: %d; delivered + dropped = %d of %d handed over' % (
                dropped, total + dropped, uploaded))
            # Never silently lost: what was handed over is delivered or counted (a batch
            # resent after a partial stream may be delivered twice, never less).
            if total + dropped < uploaded:
                fails.append('%d of the count is neither delivered nor counted as dropped' % (
                    uploaded - total - dropped))
    for f in fails:
        print('FAIL: ' + f)
    if not fails:
        print('PASS')
    return 1 if fails else 0


if __name__ == '__main__':
    sys.exit(main())
