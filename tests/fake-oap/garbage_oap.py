#!/usr/bin/python3
"""A misbehaving OAP for the agent's robustness test (a test peer, not
product code; tests/host/42-agent-oap-garbage.sh drives it).

It speaks raw HTTP/2 written by hand here (grpcio cannot be made to send
broken framing), and walks through a list of misbehaviours: each one is
served until it was delivered --per-mode times (to a connection or to a
stream, see MODES), then the next one starts and the connections of the
previous one are closed, so the agent has to reconnect for every mode.
After the last mode it closes the listening socket and exits, so that a
real (fake) OAP can take over the port.

Every event is one JSON line in --record: {"event": "mode", "mode": M},
{"event": "conn", "mode": M}, {"event": "served", "mode": M, ...}.
Standard library only.
"""
import argparse
import json
import os
import socket
import struct
import sys
import threading
import time

PREFACE = b'PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n'
DATA, HEADERS, PRIORITY, RST_STREAM, SETTINGS, PING, GOAWAY, WINDOW_UPDATE, CONTINUATION = \
    0, 1, 2, 3, 4, 6, 7, 8, 9
END_STREAM, ACK, END_HEADERS = 0x1, 0x1, 0x4

# name: (level, what it does). 'conn' modes act on a connection as soon as
# it is accepted; 'stream' modes answer each request (HEADERS) with it.
MODES = {
    'random':       ('conn', 'random bytes instead of HTTP/2, without end'),
    'silent':       ('conn', 'accepts, reads, never answers'),
    'goaway':       ('conn', 'SETTINGS, then GOAWAY(PROTOCOL_ERROR) at once'),
    'pingflood':    ('conn', 'PING frames without end'),
    'settingsflood': ('conn', 'SETTINGS frames without end'),
    'trailers-only': ('stream', 'trailers-only INTERNAL with a grpc-message'),
    'bad-status':   ('stream', 'trailers-only, grpc-status 99, a 16 KiB grpc-message'),
    'http503':      ('stream', 'HTTP 503 without grpc-status'),
    'rst':          ('stream', 'RST_STREAM(REFUSED_STREAM)'),
    'huge-prefix':  ('stream', 'a message whose prefix claims 4 GiB - 1'),
    'huge-real':    ('stream', 'a real 8 MiB message, sent within flow control'),
    'big-valid':    ('stream', 'a valid 3 MiB Commands message and grpc-status 0'),
    'endless':      ('stream', 'small messages without end, within flow control'),
    'dataflood':    ('stream', 'DATA without end, ignoring flow control'),
    'headerflood':  ('stream', 'HEADERS without END_HEADERS, CONTINUATION without end'),
    'emptydata':    ('stream', 'empty DATA frames without end (no flow control to stop them)'),
    'priorityflood': ('conn', 'PRIORITY frames for ever new streams, without end'),
}


def frame(ftype, flags, sid, payload=b''):
    return struct.pack('>I', len(payload))[1:] + bytes([ftype, flags]) + \
        struct.pack('>I', sid & 0x7fffffff) + payload


def hpack_int(n, prefix_bits, first=0):
    top = (1 << prefix_bits) - 1
    if n < top:
        return bytes([first | n])
    out = [first | top]
    n -= top
    while n >= 128:
        out.append((n & 0x7f) | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def hpack(headers):
    """Literal header fields without indexing, new names, no Huffman."""
    out = b''
    for k, v in headers:
        k, v = k.encode(), v.encode()
        out += b'\x00' + hpack_int(len(k), 7) + k + hpack_int(len(v), 7) + v
    return out


def grpc_msg(body):
    return b'\0' + struct.pack('>I', len(body)) + body


def varint(n):
    out = b''
    while True:
        out += bytes([(n & 0x7f) | (0x80 if n > 0x7f else 0)])
        n >>= 7
        if not n:
            return out


def pb(field, b):
    return bytes([field << 3 | 2]) + varint(len(b)) + b


def big_commands(size):
    """A well-formed Commands message of about size bytes: commands the
    agent does not know, each with a few long arguments."""
    one = pb(1, pb(1, b'GarbageCommand') +
             b''.join(pb(2, pb(1, b'k%d' % i) + pb(2, b'v' * 1000)) for i in range(8)))
    return one * (size // len(one) + 1)


RESP_HDRS = [(':status', '200'), ('content-type', 'application/grpc')]


class Server:
    def __init__(self, args):
        self.args = args
        self.modes = args.modes.split(',')
        for m in self.modes:
            if m not in MODES:
                sys.exit('garbage-oap: unknown mode %s' % m)
        self.idx = 0
        self.count = 0
        self.since = time.time()
        self.lock = threading.Lock()
        self.conns = {}  # socket -> mode index
        self.done = threading.Event()
        self.fd = os.open(args.record, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644) \
            if args.record else None
        self.big = big_commands(3 << 20)

    def rec(self, **r):
        r['time'] = time.time()
        if self.fd is not None:
            data = (json.dumps(r, sort_keys=True) + '\n').encode()
            while data:
                data = data[os.write(self.fd, data):]

    def mode(self):
        with self.lock:
            return self.idx, self.modes[self.idx] if self.idx < len(self.modes) else None

    def served(self, idx, **extra):
        """One delivery of mode idx; moves on after --per-mode of them."""
        with self.lock:
            if idx != self.idx:
                return
            self.count += 1
            self.rec(event='served', mode=self.modes[idx], n=self.count, **extra)
            if self.count >= self.args.per_mode:
                self.advance_locked()

    def advance_locked(self):
        old = [s for s, i in self.conns.items() if i == self.idx]
        self.idx += 1
        self.count = 0
        self.since = time.time()
        if self.idx < len(self.modes):
            self.rec(event='mode', mode=self.modes[self.idx])
        else:
            self.rec(event='modes_done')
            self.done.set()
        # Close what the old mode left open, a moment later, so that the
        # answer just written still reaches the agent before the FIN.
        def close_later():
            time.sleep(0.3)
            for s in old:
                try:
                    s.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
        threading.Thread(target=close_later, daemon=True).start()

    def watchdog(self):
        """A mode the agent never reaches (it stopped calling) still ends."""
        while not self.done.is_set():
            time.sleep(0.2)
            with self.lock:
                if self.idx < len(self.modes) and time.time() - self.since > self.args.max_mode_s:
                    self.rec(event='mode_timeout', mode=self.modes[self.idx], served=self.count)
                    self.advance_locked()

    def serve(self):
        ls = socket.socket()
        ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        host, port = self.args.listen.rsplit(':', 1)
        ls.bind((host, int(port)))
        ls.listen(16)
        ls.settimeout(0.2)
        if self.args.port_file:
            tmp = self.args.port_file + '.tmp'
            with open(tmp, 'w') as f:
                f.write('%d\n' % ls.getsockname()[1])
            os.rename(tmp, self.args.port_file)
        self.rec(event='mode', mode=self.modes[0])
        threading.Thread(target=self.watchdog, daemon=True).start()
        while not self.done.is_set():
            try:
                s, _ = ls.accept()
            except socket.timeout:
                continue
            idx, m = self.mode()
            if m is None:
                s.close()
                break
            with self.lock:
                self.conns[s] = idx
            self.rec(event='conn', mode=m)
            threading.Thread(target=self.conn, args=(s, idx, m), daemon=True).start()
        ls.close()
        time.sleep(0.5)  # let the last closes go out
        self.rec(event='exit')


    def conn(self, s, idx, m):
        try:
            Conn(self, s, idx, m).run()
        except OSError:
            pass
        finally:
            with self.lock:
                self.conns.pop(s, None)
            try:
                # shutdown first: a close() alone does not end a recv() blocked
                # in another thread, and the agent would see no FIN
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            try:
                s.close()
            except OSError:
                pass


class Conn:
    def __init__(self, srv, s, idx, mode):
        self.srv, self.s, self.idx, self.mode = srv, s, idx, mode
        self.wlock = threading.Lock()
        self.cv = threading.Condition()
        self.conn_window = 65535
        self.init_window = 65535
        self.windows = {}   # stream -> send window
        self.reset = set()  # streams the client reset
        self.closed = False

    def send(self, b):
        with self.wlock:
            self.s.sendall(b)

    def alive(self):
        return not self.closed and not self.srv.done.is_set() and self.srv.mode()[0] == self.idx

    def run(self):
        lvl = MODES[self.mode][0]
        if lvl == 'conn' and self.mode == 'random':
            threading.Thread(target=self.drain, daemon=True).start()
            rnd = open('/dev/urandom', 'rb')
            self.send(rnd.read(16384))
            self.srv.served(self.idx, what='random bytes')
            while self.alive():
                self.send(rnd.read(16384))
                time.sleep(0.01)
            return
        if self.mode == 'silent':
            self.srv.served(self.idx, what='accepted, no answer')
            self.drain()
            return
        self.send(frame(SETTINGS, 0, 0))
        if self.mode == 'goaway':
            self.send(frame(GOAWAY, 0, 0, struct.pack('>II', 0, 1) + b'garbage server'))
            self.srv.served(self.idx, what='goaway')
            self.drain()
            return
        if self.mode in ('pingflood', 'settingsflood', 'priorityflood'):
            threading.Thread(target=self.drain, daemon=True).start()
            self.srv.served(self.idx, what=self.mode)
            n = 0
            while self.alive():
                if self.mode == 'pingflood':
                    self.send(frame(PING, 0, 0, struct.pack('>Q', n)) * 64)
                elif self.mode == 'priorityflood':
                    self.send(b''.join(frame(PRIORITY, 0, 2 * (64 * n + i) + 2,
                                             struct.pack('>IB', 0, 15)) for i in range(64)))
                else:
                    self.send(frame(SETTINGS, 0, 0, struct.pack('>HI', 3, 100 + n)) * 64)
                n += 1
            return
        self.read_frames()

    def drain(self):
        try:
            while self.s.recv(65536):
                pass
        except OSError:
            pass
        self.closed = True
        with self.cv:
            self.cv.notify_all()

    def recv_exact(self, n):
        b = b''
        while len(b) < n:
            c = self.s.recv(n - len(b))
            if not c:
                raise EOFError
            b += c
        return b

    def read_frames(self):
        """The client's frames: SETTINGS (ACKed, initial window), PING (ACKed),
        WINDOW_UPDATE (credits), RST_STREAM, HEADERS (a request: answered by
        the mode, in a thread, so that reading goes on meanwhile)."""
        try:
            if self.recv_exact(len(PREFACE)) != PREFACE:
                return
            while True:
                h = self.recv_exact(9)
                ln = struct.unpack('>I', b'\0' + h[:3])[0]
                ftype, flags, sid = h[3], h[4], struct.unpack('>I', h[5:])[0] & 0x7fffffff
                p = self.recv_exact(ln)
                if ftype == SETTINGS and not flags & ACK:
                    for i in range(0, len(p) - 5, 6):
                        k, v = struct.unpack('>HI', p[i:i + 6])
                        if k == 4:
                            with self.cv:
                                for st in self.windows:
                                    self.windows[st] += v - self.init_window
                                self.init_window = v
                                self.cv.notify_all()
                    self.send(frame(SETTINGS, ACK, 0))
                elif ftype == PING and not flags & ACK:
                    self.send(frame(PING, ACK, 0, p))
                elif ftype == WINDOW_UPDATE:
                    inc = struct.unpack('>I', p)[0] & 0x7fffffff
                    with self.cv:
                        if sid == 0:
                            self.conn_window += inc
                        elif sid in self.windows:
                            self.windows[sid] += inc
                        self.cv.notify_all()
                elif ftype == RST_STREAM:
                    with self.cv:
                        self.reset.add(sid)
                        self.cv.notify_all()
                elif ftype == HEADERS:
                    with self.cv:
                        self.windows[sid] = self.init_window
                    threading.Thread(target=self.answer, args=(sid,), daemon=True).start()
        except (EOFError, OSError):
            pass
        finally:
            self.closed = True
            with self.cv:
                self.cv.notify_all()

    def send_data(self, sid, data, end=False):
        """DATA within the flow-control windows; False when the stream or
        the connection went away first."""
        off = 0
        while off < len(data) or (end and off == 0 == len(data)):
            with self.cv:
                while self.alive() and sid not in self.reset and \
                        min(self.conn_window, self.windows[sid]) <= 0:
                    self.cv.wait(0.2)
                if not self.alive() or sid in self.reset:
                    return False
                n = min(16384, len(data) - off, self.conn_window, self.windows[sid])
                self.conn_window -= n
                self.windows[sid] -= n
            last = end and off + n == len(data)
            self.send(frame(DATA, END_STREAM if last else 0, sid, data[off:off + n]))
            off += n
            if not len(data):
                break
        return True

    def trailers(self, sid, status='0', msg=None):
        h = [('grpc-status', status)] + ([('grpc-message', msg)] if msg else [])
        self.send(frame(HEADERS, END_STREAM | END_HEADERS, sid, hpack(h)))

    def answer(self, sid):
        m = self.mode
        try:
            self.answer_mode(m, sid)
        except OSError:
            pass

    def answer_mode(self, m, sid):
        served = lambda **kw: self.srv.served(self.idx, stream=sid, **kw)  # noqa: E731
        if m == 'trailers-only':
            self.send(frame(HEADERS, END_STREAM | END_HEADERS, sid, hpack(RESP_HDRS + [
                ('grpc-status', '13'), ('grpc-message', 'garbage%20server%3A%20trailers-only')])))
            served()
        elif m == 'bad-status':
            self.send(frame(HEADERS, END_STREAM | END_HEADERS, sid, hpack(RESP_HDRS + [
                ('grpc-status', '99'), ('grpc-message', 'x' * 16000)])))
            served()
        elif m == 'http503':
            self.send(frame(HEADERS, END_STREAM | END_HEADERS, sid, hpack([(':status', '503')])))
            served()
        elif m == 'rst':
            self.send(frame(RST_STREAM, 0, sid, struct.pack('>I', 7)))
            served()
        elif m == 'huge-prefix':
            self.send(frame(HEADERS, END_HEADERS, sid, hpack(RESP_HDRS)))
            ok = self.send_data(sid, b'\0\xff\xff\xff\xff' + os.urandom(1000))
            served(ok=ok)
            self.send_data(sid, os.urandom(1 << 20))  # until the client resets it
        elif m == 'huge-real':
            self.send(frame(HEADERS, END_HEADERS, sid, hpack(RESP_HDRS)))
            body = os.urandom(8 << 20)
            ok = self.send_data(sid, grpc_msg(body)[:1 << 16])
            served(ok=ok)
            if self.send_data(sid, grpc_msg(body)[1 << 16:]):
                self.trailers(sid)
        elif m == 'big-valid':
            self.send(frame(HEADERS, END_HEADERS, sid, hpack(RESP_HDRS)))
            if self.send_data(sid, grpc_msg(self.srv.big)):
                self.trailers(sid)
                served(bytes=len(self.srv.big))
        elif m == 'endless':
            self.send(frame(HEADERS, END_HEADERS, sid, hpack(RESP_HDRS)))
            msg = grpc_msg(b'\x0a\x00' * 50)
            sent = 0
            t = time.time()
            while self.send_data(sid, msg * 100):
                sent += 100 * len(msg)
                if t and time.time() - t > 1:
                    served(what='still sending', bytes=sent)
                    t = 0
        elif m == 'dataflood':
            self.send(frame(HEADERS, END_HEADERS, sid, hpack(RESP_HDRS)))
            chunk = frame(DATA, 0, sid, b'\0' * 16384)
            served()
            while self.alive() and sid not in self.reset:
                self.send(chunk * 16)
        elif m == 'emptydata':
            self.send(frame(HEADERS, END_HEADERS, sid, hpack(RESP_HDRS)))
            empty = frame(DATA, 0, sid) * 1024
            served()
            while self.alive() and sid not in self.reset:
                self.send(empty)
        elif m == 'headerflood':
            self.send(frame(HEADERS, 0, sid, hpack(RESP_HDRS)))
            cont = frame(CONTINUATION, 0, sid, hpack([('x-junk', 'y' * 8000)]))
            served()
            while self.alive():
                self.send(cont)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--listen', default='127.0.0.1:0')
    ap.add_argument('--port-file')
    ap.add_argument('--record')
    ap.add_argument('--modes', default=','.join(MODES))
    ap.add_argument('--per-mode', type=int, default=2)
    ap.add_argument('--max-mode-s', type=float, default=10)
    ap.add_argument('--list', action='store_true', help='print the modes and exit')
    args = ap.parse_args()
    if args.list:
        for k, (lvl, what) in MODES.items():
            print('%-14s %-6s %s' % (k, lvl, what))
        return
    Server(args).serve()


if __name__ == '__main__':
    main()
