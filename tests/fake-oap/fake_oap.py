#!/usr/bin/python3
"""A fake Apache SkyWalking OAP for skyprof's agent tests (a test peer, not
product code).

It serves the five services the agent uses (EBPFProcessService,
EBPFProfilingService, ContinuousProfilingService, MeterReportService, and
the policy/report calls) from the project's own proto/sw_*.proto, read at
start by protoparse.py, through grpc's generic handlers. Every request is
recorded as one JSON line in --record (flushed at once, so tests can read
while it runs); a client stream's messages are recorded as they arrive and
its end as {"event": "stream_end", "ok": true|false}.

Tasks: --task TARGET[:SECONDS[:SERVICE]] creates a FIXED_TIME task for the
first process that registers (of SERVICE, when given); --commands FILE is
re-read on every queryTasks and its JSON list of raw commands
({"command": NAME, "args": [[k, v], ...]}) is returned once, which is how the
tests send malformed ones. --token enforces the `authentication` header
(PERMISSION_DENIED otherwise), --tls-cert/--tls-key serve TLS (with --tls-ca,
client certificates are required). --crash-in-stream N:K makes it die in the
middle of an upload.
"""
import argparse
import base64
import hashlib
import json
import os
import signal
import sys
import threading
import time
import uuid
from concurrent import futures

import grpc
from google.protobuf import json_format

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import protoparse  # noqa: E402

PKG = 'skywalking.v3.'


def oap_process_id(service, instance, process):
    """The OAP's IDManager formula (protocol notes 3.3)."""
    def name(s, cut):
        s = s or '_blank'
        return s[:70] if cut else s
    sid = base64.b64encode(name(service, True).encode()).decode() + '.1'
    iid = sid + '_' + base64.b64encode(name(instance, True).encode()).decode()
    return hashlib.sha256((name(process, False) + '_' + iid).encode()).hexdigest()


class Recorder:
    def __init__(self, path):
        # One write(2) per record on an O_APPEND fd: a buffered text file
        # splits lines longer than its buffer into several writes, and a
        # test reading the file meanwhile would see half a record.
        self.fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644) if path else None
        self.lock = threading.Lock()

    def write(self, rec):
        rec.setdefault('time', time.time())
        line = json.dumps(rec, sort_keys=True)
        with self.lock:
            if self.fd is not None:
                data = (line + '\n').encode()
                while data:
                    data = data[os.write(self.fd, data):]


class FakeOAP:
    def __init__(self, args, pool):
        self.args = args
        self.pool = pool
        self.rec = Recorder(args.record)
        self.lock = threading.Lock()
        self.processes = {}      # process id -> dict(agent, service, instance, name, pid)
        self.supported = {}      # process id -> support_ebpf_profiling of its first report
        self.tasks = []          # list of dict: the commands' args
        self.pending_tasks = list(args.task or [])
        self.streams = 0
        self.update_seq = int(time.time() * 1000)

    def cls(self, name):
        return protoparse.message_class(self.pool, PKG + name)

    def check_auth(self, context):
        if not self.args.token:
            return True
        md = dict(context.invocation_metadata())
        if md.get('authentication') != self.args.token:
            self.rec.write({'event': 'auth_denied', 'got': md.get('authentication')})
            context.abort(grpc.StatusCode.PERMISSION_DENIED, 'wrong token')
            return False
        return True

    def record(self, method, msg, **extra):
        d = json_format.MessageToDict(msg, preserving_proto_field_name=True)
        r = {'method': method, 'msg': d}
        r.update(extra)
        self.rec.write(r)

    def commands(self, cmds):
        out = self.cls('Commands')()
        for c in cmds:
            cmd = out.commands.add(command=c['command'])
            for k, v in c['args']:
                cmd.args.add(key=k, value=v)
        return out

    # EBPFProcessService ------------------------------------------------------

    def report_processes(self, req, context):
        self.check_auth(context)
        self.record('reportProcesses', req)
        down = self.cls('EBPFReportProcessDownstream')()
        for p in req.processes:
            if p.WhichOneof('metadata') != 'hostProcess':
                continue
            h = p.hostProcess
            e = h.entity
            pid_ = oap_process_id(e.serviceName, e.instanceName, e.processName)
            # As the OAP: only a process first reported with
            # support_ebpf_profiling "true" is handed tasks.
            props = {kv.key: kv.value for kv in h.properties}
            with self.lock:
                if pid_ not in self.processes:
                    self.supported[pid_] = props.get('support_ebpf_profiling') == 'true'
                self.processes[pid_] = dict(agent=req.ebpfAgentID, service=e.serviceName,
                                            instance=e.instanceName, name=e.processName,
                                            pid=h.pid)
            d = down.processes.add(processId=pid_)
            d.hostProcess.pid = h.pid
            d.hostProcess.entityMetadata.CopyFrom(e)
        self.make_tasks()
        return down

    def keep_alive(self, req, context):
        self.check_auth(context)
        self.record('keepAlive', req)
        return self.cls('Commands')()

    # EBPFProfilingService ----------------------------------------------------

    def make_tasks(self):
        """Turn --task requests into tasks once a matching process exists."""
        with self.lock:
            for spec in list(self.pending_tasks):
                parts = spec.split(':')
                target = parts[0]
                dur = parts[1] if len(parts) > 1 and parts[1] else '60'
                svc = parts[2] if len(parts) > 2 else None
                for pid_, p in self.processes.items():
                    if svc and p['service'] != svc or not self.supported.get(pid_):
                        continue
                    self.update_seq += 1
                    now = int(time.time() * 1000)
                    task_id = hashlib.sha256(('%s%s%d' % (pid_, target, now)).encode()).hexdigest()
                    self.tasks.append({'agent': p['agent'], 'update': self.update_seq, 'args': [
                        ['SerialNumber', str(uuid.uuid4())], ['TaskId', task_id],
                        ['ProcessId', pid_], ['TaskUpdateTime', str(self.update_seq)],
                        ['TriggerType', 'FIXED_TIME'], ['TargetType', target],
                        ['TaskStartTime', str(now)], ['ExtensionConfigJSON', 'null'],
                        ['FixedTriggerDuration', dur]]})
                    self.rec.write({'event': 'task_created', 'task_id': task_id,
                                    'process_id': pid_, 'target': target, 'start': now,
                                    'duration': int(dur), 'pid': p['pid']})
                    self.pending_tasks.remove(spec)
                    break

    def query_tasks(self, req, context):
        self.check_auth(context)
        self.record('queryTasks', req)
        self.make_tasks()
        cmds = []
        with self.lock:
            for t in self.tasks:
                if t['agent'] == req.roverInstanceId and t['update'] > req.latestUpdateTime:
                    cmds.append({'command': 'EBPFProfilingTaskQuery', 'args': t['args']})
        if self.args.commands and os.path.exists(self.args.commands):
            with open(self.args.commands) as f:
                raw = json.load(f)
            os.rename(self.args.commands, self.args.commands + '.sent')
            cmds.extend(raw)
            self.rec.write({'event': 'raw_commands_sent', 'count': len(raw)})
        return self.commands(cmds)

    def collect_profiling_data(self, it, context):
        self.check_auth(context)
        with self.lock:
            self.streams += 1
            # unique across restarts that append to the same record file
            sid = '%d-%d' % (os.getpid(), self.streams)
        n = 0
        ok = False
        crash = self.args.crash_in_stream
        try:
            for msg in it:
                n += 1
                self.record('collectProfilingData', msg, stream=sid, index=n - 1)
                if crash and crash == (self.streams_ord(sid), n):
                    # a crash mid-stream: what was recorded is "stored", the
                    # client gets no answer
                    self.rec.write({'event': 'crash', 'stream': sid, 'after': n})
                    os._exit(137)
            ok = True
        finally:
            self.rec.write({'event': 'stream_end', 'method': 'collectProfilingData',
                            'stream': sid, 'messages': n, 'ok': ok})
        return self.cls('Commands')()

    def streams_ord(self, sid):
        return int(sid.split('-')[1])

    # ContinuousProfilingService, MeterReportService ----------------------------

    def query_policies(self, req, context):
        self.check_auth(context)
        self.record('queryPolicies', req)
        if not self.args.policy:
            return self.cls('Commands')()
        # Like the OAP: answer only for services whose UUID differs from the
        # agent's; the file is re-read each time so a test can change it.
        # A file that is not JSON is sent as it is (for the malformed case).
        with open(self.args.policy) as f:
            raw = f.read()
        try:
            pol = json.loads(raw)
        except ValueError:
            return self.commands([{'command': 'ContinuousProfilingPolicyQuery',
                                   'args': [['SerialNumber', str(uuid.uuid4())],
                                            ['ServiceWithPolicyJSON', raw]]}])
        held = {q.serviceName: q.uuid for q in req.policies}
        out = [e for e in pol if isinstance(e, dict) and e.get('ServiceName') in held and
               held[e['ServiceName']] != e.get('UUID', '')]
        if not out:
            return self.cls('Commands')()
        return self.commands([{'command': 'ContinuousProfilingPolicyQuery',
                               'args': [['SerialNumber', str(uuid.uuid4())],
                                        ['ServiceWithPolicyJSON', json.dumps(out)]]}])

    def report_profiling_task(self, req, context):
        self.check_auth(context)
        self.record('reportProfilingTask', req)
        task_id = uuid.uuid4().hex
        return self.commands([{'command': 'ContinuousProfilingReportTask',
                               'args': [['SerialNumber', str(uuid.uuid4())],
                                        ['TaskId', task_id]]}])

    def meter_stream(self, name):
        def handler(it, context):
            self.check_auth(context)
            for msg in it:
                self.record(name, msg)
            return self.cls('Commands')()
        return handler

    def handlers(self):
        table = {
            'EBPFProcessService': {'reportProcesses': self.report_processes,
                                   'keepAlive': self.keep_alive},
            'EBPFProfilingService': {'queryTasks': self.query_tasks,
                                     'collectProfilingData': self.collect_profiling_data},
            'ContinuousProfilingService': {'queryPolicies': self.query_policies,
                                           'reportProfilingTask': self.report_profiling_task},
            'MeterReportService': {'collect': self.meter_stream('collect'),
                                   'collectBatch': self.meter_stream('collectBatch')},
        }
        out = []
        for svc, methods in table.items():
            sd = self.pool.FindServiceByName(PKG + svc)
            hs = {}
            for m in sd.methods:
                fn = methods[m.name]
                req = protoparse.message_class(self.pool, m.input_type.full_name)
                des = req.FromString
                ser = lambda msg: msg.SerializeToString()  # noqa: E731
                if m.client_streaming:
                    hs[m.name] = grpc.stream_unary_rpc_method_handler(
                        fn, request_deserializer=des, response_serializer=ser)
                else:
                    hs[m.name] = grpc.unary_unary_rpc_method_handler(
                        fn, request_deserializer=des, response_serializer=ser)
            out.append(grpc.method_handlers_generic_handler(PKG + svc, hs))
        return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    here = os.path.dirname(os.path.abspath(__file__))
    default_proto = os.path.join(here, '..', '..', 'proto')
    ap.add_argument('--proto-dir', default=os.environ.get('SKYPROF_PROTO_DIR', default_proto))
    ap.add_argument('--listen', default='127.0.0.1:0')
    ap.add_argument('--port-file', help='write the bound port here once listening')
    ap.add_argument('--record', help='append received messages as JSON lines')
    ap.add_argument('--task', action='append', help='TARGET[:SECONDS[:SERVICE]]')
    ap.add_argument('--commands', help='JSON file of raw commands, sent once')
    ap.add_argument('--token', help='require this authentication header')
    ap.add_argument('--policy', help='ServiceWithPolicyJSON file answered to queryPolicies')
    ap.add_argument('--crash-in-stream', metavar='N:K',
                    type=lambda v: tuple(int(x) for x in v.split(':')),
                    help='exit at once after recording the K-th message of the N-th '
                    'collectProfilingData stream (no answer, like a crashed OAP)')
    ap.add_argument('--tls-cert')
    ap.add_argument('--tls-key')
    ap.add_argument('--tls-ca', help='require client certificates signed by this CA')
    args = ap.parse_args()

    pool, _ = protoparse.load(args.proto_dir)
    oap = FakeOAP(args, pool)
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=8))
    for h in oap.handlers():
        server.add_generic_rpc_handlers((h,))
    if args.tls_cert:
        with open(args.tls_key, 'rb') as f:
            key = f.read()
        with open(args.tls_cert, 'rb') as f:
            cert = f.read()
        ca = None
        if args.tls_ca:
            with open(args.tls_ca, 'rb') as f:
                ca = f.read()
        creds = grpc.ssl_server_credentials([(key, cert)], root_certificates=ca,
                                            require_client_auth=ca is not None)
        port = server.add_secure_port(args.listen, creds)
    else:
        port = server.add_insecure_port(args.listen)
    if not port:
        sys.exit('fake-oap: cannot listen on %s' % args.listen)
    server.start()
    oap.rec.write({'event': 'listening', 'port': port, 'tls': bool(args.tls_cert)})
    if args.port_file:
        tmp = args.port_file + '.tmp'
        with open(tmp, 'w') as f:
            f.write('%d\n' % port)
        os.rename(tmp, args.port_file)
    print('fake-oap: listening on port %d%s' % (port, ' (TLS)' if args.tls_cert else ''),
          flush=True)
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *a: stop.set())
    signal.signal(signal.SIGINT, lambda *a: stop.set())
    stop.wait()
    server.stop(1)


if __name__ == '__main__':
    main()
