# issue 11, host side (no module needed): the agent against a misbehaving
# OAP (tests/fake-oap/garbage_oap.py): random bytes instead of HTTP/2, a
# server that accepts and never answers, GOAWAY at once, PING / SETTINGS /
# PRIORITY / CONTINUATION / empty-DATA floods, trailers-only errors, a bad
# grpc-status, HTTP 503, refused streams, a length prefix of 4 GiB, a real
# 8 MiB message, a valid 3 MiB one that is not the expected message, an
# endless stream of messages, DATA beyond the flow-control window. Each
# misbehaviour is served twice (GARBAGE_PER_MODE=N: N times), on fresh
# connections.
#
# Two agents run side by side, each against its own garbage server: the
# program as installed (its RSS sampled every 0.5 s) and the same program
# built with ASan+UBSan (build/skyprof-asan; any report fails). Both must
# live through it, log a clear line for each misbehaviour, reconnect every
# time, and register with a real (fake) OAP started on the same port
# afterwards. The installed one's RSS must stay under RSS_MAX_KB and must not
# grow from the first to the last part of the run.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${BUILD:-build}
SKYPROF_ASAN=$top/$BUILD/skyprof-asan
GARBAGE=$top/tests/fake-oap/garbage_oap.py
RSS_MAX_KB=${RSS_MAX_KB:-49152}
OUT_NAME=garbage
. "$top/tests/host/agent-lib.bash"
make -C "$top" -s "$BUILD/skyprof-asan" || { echo "FAIL: cannot build $SKYPROF_ASAN"; exit 1; }
t0=$SECONDS

mkdir -p "$OUT/workloads"
cp "$(command -v sleep)" "$OUT/workloads/spin"
"$OUT/workloads/spin" 900 &
agent_pids+=("$!")

# mode -> what the agent's log must say about it (one line at least)
declare -A expect=(
	[random]='broke HTTP/2: .*expected SETTINGS'
	[silent]='DEADLINE_EXCEEDED: no answer within 2000 ms'
	[goaway]='GOAWAY \(PROTOCOL_ERROR: garbage server\)'
	[pingflood]='Flooding was detected'
	[settingsflood]='Flooding was detected'
	[trailers-only]='INTERNAL: garbage server: trailers-only'
	[bad-status]="UNKNOWN: unparsable grpc-status '99'"
	[http503]='UNAVAILABLE: HTTP status 503'
	[rst]='stream reset by the server \(REFUSED_STREAM\)'
	[huge-prefix]='message of 4294967295 bytes is over our 4194304-byte limit'
	[huge-real]='message of 8388608 bytes is over our 4194304-byte limit'
	[big-valid]='answer \([0-9]+ bytes\) does not decode as skywalking.v3.EBPFReportProcessDownstream'
	[endless]='no complete answer within 2000 ms \([0-9]+ bytes of DATA'
	# which of the three nghttp2 sees first depends on how fast the agent
	# reads and writes (the ASan build is slower): the stream's window
	# broken (our RST_STREAM), the connection's window broken (our GOAWAY:
	# the agent reads until the socket is dry before it writes the window
	# updates), or the RST_STREAMs it queues for the DATA that keeps coming
	# after the reset; 'Flooding' is also what ping/settings floods give, so
	# this one is looked for only in the log lines of the dataflood window
	# (in_window)
	[dataflood]='stream reset by us \(FLOW_CONTROL_ERROR\)|broke HTTP/2 \(FLOW_CONTROL_ERROR\), we sent GOAWAY|Flooding was detected'
	[headerflood]='Too many CONTINUATION frames'
	[emptydata]='DEADLINE_EXCEEDED: no answer within 2000 ms'
	[priorityflood]='DEADLINE_EXCEEDED|broke HTTP/2'
)
modes=$($PY "$GARBAGE" --list | awk '{print $1}' | tr '\n' ' ')

# in_window REC LOG MODE REGEX: a line of the agent's LOG matching REGEX was
# logged while the garbage server served MODE (from the record of its start
# to that of the next mode, plus the 2 s call timeout and a margin).
in_window() {
	$PY - "$@" <<'PY'
import json, re, sys, time
rec, log, mode, rx = sys.argv[1:]
ev = [json.loads(line) for line in open(rec)]
starts = [r['time'] for r in ev if r.get('event') == 'mode' and r.get('mode') == mode]
ends = [r['time'] for r in ev if r.get('event') in ('mode', 'modes_done', 'mode_timeout')
        and starts and r['time'] > starts[0]]
if not starts:  # the first mode has no 'mode' record: from the first record on
    first = [r['time'] for r in ev if r.get('mode') == mode]
    starts = first[:1] or [0]
t0, t1 = starts[0] - 0.5, (min(ends) if ends else time.time()) + 3.5
for line in open(log, errors='replace'):
    m = re.match(r'(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)\.(\d{3}) ', line)
    if not m or not re.search(rx, line):
        continue
    t = time.mktime(time.strptime(m.group(1), '%Y-%m-%dT%H:%M:%S')) + int(m.group(2)) / 1000
    if t0 <= t <= t1:
        sys.exit(0)
sys.exit(1)
PY
}

start_garbage() { # NAME: sets G_PID, G_PORT
	rm -f "$OUT/$1.port"
	$PY "$GARBAGE" --port-file "$OUT/$1.port" --record "$OUT/$1.jsonl" --per-mode "${GARBAGE_PER_MODE:-2}" \
		--max-mode-s $((10 * ${GARBAGE_PER_MODE:-2})) >"$OUT/$1.log" 2>&1 &
	G_PID=$!
	agent_pids+=("$G_PID")
	for _ in $(seq 50); do [ -s "$OUT/$1.port" ] && break; sleep 0.2; done
	G_PORT=$(cat "$OUT/$1.port")
}
config() { # FILE PORT
	write_config "$1" "127.0.0.1:$2"
	sed -i 's/heartbeat_period: 5s/heartbeat_period: 1s/; s/check_interval: 2s/check_interval: 1s/' "$1"
	printf 'skyprof:\n  backoff_max: 1s\n  call_timeout: 2s\n  connect_timeout: 2s\n' >>"$1"
}

start_garbage prod
prod_port=$G_PORT prod_srv=$G_PID
start_garbage asan
asan_port=$G_PORT asan_srv=$G_PID
config "$OUT/prod.yaml" "$prod_port"
config "$OUT/asan.yaml" "$asan_port"
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
start_agent "$OUT/prod.yaml" "$OUT/prod-agent.log"
prod=$AGENT_PID
SKYPROF=$SKYPROF_ASAN start_agent "$OUT/asan.yaml" "$OUT/asan-agent.log"
asan=$AGENT_PID

# RSS of the installed program every 0.5 s while the garbage runs
: >"$OUT/rss"
deadline=$((SECONDS + 120 * ${GARBAGE_PER_MODE:-2}))
while [ $SECONDS -lt $deadline ]; do
	awk '/^VmRSS/ {print $2}' /proc/$prod/status >>"$OUT/rss" 2>/dev/null
	kill -0 "$prod" 2>/dev/null && kill -0 "$asan" 2>/dev/null || break
	kill -0 "$prod_srv" 2>/dev/null || kill -0 "$asan_srv" 2>/dev/null || break
	sleep 0.5
done
garbage_s=$((SECONDS - t0))

for who in prod asan; do
	pid=${!who}
	log=$OUT/$who-agent.log
	rec=$OUT/$who.jsonl
	if kill -0 "$pid" 2>/dev/null; then
		pass "$who: the agent lived through the garbage"
	else
		wait "$pid"; fail "$who: the agent died (exit $?)"; tail -20 "$log"
	fi
	missing=()
	for m in $modes; do
		grep -q "\"event\": \"mode_timeout\", \"mode\": \"$m\"" "$rec" &&
			missing+=("$m (not reached)") && continue
		if [ "$m" = dataflood ]; then
			in_window "$rec" "$log" "$m" "${expect[$m]}" || missing+=("$m")
		else
			grep -Eq "${expect[$m]}" "$log" || missing+=("$m")
		fi
	done
	conns=$(grep -c '"event": "conn"' "$rec")
	nmodes=$(echo $modes | wc -w)
	grep -h 'OAP 127' "$log" | sed -E 's/^.*(warn|info) +OAP [0-9.:]+: //' | sort | uniq -c |
		sort -rn | head -40 | sed 's/^/    /'
	if [ ${#missing[@]} = 0 ] && grep -q '"event": "modes_done"' "$rec"; then
		pass "$who: a clear log line for each of the $nmodes misbehaviours"
	else
		fail "$who: no expected log line for: ${missing[*]:-(modes not finished)}"
	fi
	# an OK answer that does not decode backs off like any failure: it was
	# asked for again at once (apart by no more than the transfer's time)
	gap=$($PY - "$rec" <<'PY'
import json, sys
t = [r['time'] for r in map(json.loads, open(sys.argv[1]))
     if r.get('event') == 'served' and r.get('mode') == 'big-valid']
print('%.2f' % (t[1] - t[0]) if len(t) > 1 else -1)
PY
)
	if $PY -c "import sys; sys.exit(not float('$gap') >= 0.7)"; then
		pass "$who: an undecodable answer backs off (${gap} s to the next attempt)"
	else
		fail "$who: asked again ${gap} s after an undecodable answer (no backoff)"
	fi
	# each mode starts on a fresh connection (the server closes the old ones)
	if [ "$conns" -ge "$nmodes" ]; then
		pass "$who: reconnected $conns times over $nmodes modes"
	else
		fail "$who: only $conns connections for $nmodes modes"
	fi
done

# afterwards, a real OAP on the same ports: both register
for who in prod asan; do
	port_var=${who}_port
	kill -0 "${!who}" 2>/dev/null || continue
	start_oap "$who-real" --listen "127.0.0.1:${!port_var}"
	if wait_for "$OUT/$who-agent.log" "registered as process" 30; then
		pass "$who: registered with a real OAP after the garbage"
	else
		fail "$who: no registration after the garbage"; tail -5 "$OUT/$who-agent.log"
	fi
done

# RSS: bounded, and no growth from the first to the last fifth of the run
read -r n lo med hi first last < <($PY - "$OUT/rss" <<'PY'
import sys
v = [int(x) for x in open(sys.argv[1]).read().split()]
if not v:
    print(0, 0, 0, 0, 0, 0)
    sys.exit()
s = sorted(v)
k = max(1, len(v) // 5)
print(len(v), s[0], s[len(s) // 2], s[-1], max(v[:k]), max(v[-k:]))
PY
)
echo "RSS of the agent over $n samples in ${garbage_s} s: min $lo kB, median $med kB, max $hi kB;" \
	"max of the first fifth $first kB, of the last fifth $last kB"
if [ "$n" -gt 10 ] && [ "$hi" -le "$RSS_MAX_KB" ] && [ "$last" -le $((first + 8192)) ]; then
	pass "RSS bounded: max $hi kB (limit $RSS_MAX_KB), last fifth $last kB vs first $first kB"
else
	fail "RSS: max $hi kB (limit $RSS_MAX_KB), first fifth $first kB, last fifth $last kB ($n samples)"
fi

# stop both: a clean exit (the ASan build exits non-zero on a leak), and no
# sanitizer report
for who in prod asan; do
	pid=${!who}
	kill -0 "$pid" 2>/dev/null || continue
	kill -TERM "$pid"
	wait "$pid"
	rc=$?
	if [ $rc = 0 ]; then
		pass "$who: clean exit on TERM"
	else
		fail "$who: exit $rc on TERM"; tail -5 "$OUT/$who-agent.log"
	fi
done
if grep -Eq 'ERROR: (AddressSanitizer|LeakSanitizer)|runtime error:' "$OUT/asan-agent.log"; then
	fail "asan: sanitizer report"; grep -E -A15 'ERROR: |runtime error:' "$OUT/asan-agent.log" | head -40
else
	pass "asan: no AddressSanitizer, LeakSanitizer or UBSan report"
fi
echo "garbage test: $((SECONDS - t0)) s"
[ $fails = 0 ] && echo "all agent garbage checks passed" || { echo "$fails failed"; exit 1; }
