"""A reader for the small .proto subset skyprof's proto/sw_*.proto use.

It turns the files into google.protobuf descriptors at run time, so the fake
OAP needs neither protoc nor generated stubs (the guest has neither; Debian's
python3-grpcio has no grpc_tools). Supported: syntax, package, import,
message (nested), enum, oneof, repeated, scalar/message/enum fields, and
service with unary or client/server-streaming rpcs. Anything else is an
error, so a .proto that grows past the subset fails loudly here.
"""
import os
import re

from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

try:
    from google.protobuf.message_factory import GetMessageClass as _get_class
except ImportError:  # protobuf < 4.21 (Debian bookworm ships 3.21 with the old API)
    _get_class = None

_TOKEN = re.compile(r'\s*(?:(//[^\n]*)|(/\*.*?\*/)|("(?:[^"\\]|\\.)*")|([A-Za-z_][\w.]*)|(-?\d+)|(.))',
                    re.S)

FD = descriptor_pb2.FieldDescriptorProto
SCALARS = {
    'double': FD.TYPE_DOUBLE, 'float': FD.TYPE_FLOAT, 'int64': FD.TYPE_INT64,
    'uint64': FD.TYPE_UINT64, 'int32': FD.TYPE_INT32, 'fixed64': FD.TYPE_FIXED64,
    'fixed32': FD.TYPE_FIXED32, 'bool': FD.TYPE_BOOL, 'string': FD.TYPE_STRING,
    'bytes': FD.TYPE_BYTES, 'uint32': FD.TYPE_UINT32, 'sfixed32': FD.TYPE_SFIXED32,
    'sfixed64': FD.TYPE_SFIXED64, 'sint32': FD.TYPE_SINT32, 'sint64': FD.TYPE_SINT64,
}


def _tokens(text):
    out = []
    pos = 0
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if not m or m.end() == pos:
            break
        pos = m.end()
        if m.group(1) or m.group(2):
            continue
        tok = m.group(3) or m.group(4) or m.group(5) or m.group(6)
        if tok is not None and tok.strip():
            out.append(tok)
    return out


class _Parser:
    def __init__(self, toks, name):
        self.t = toks
        self.i = 0
        self.name = name

    def peek(self):
        return self.t[self.i] if self.i < len(self.t) else None

    def next(self):
        tok = self.peek()
        if tok is None:
            raise SyntaxError('%s: unexpected end' % self.name)
        self.i += 1
        return tok

    def expect(self, want):
        tok = self.next()
        if tok != want:
            raise SyntaxError('%s: expected %r, got %r' % (self.name, want, tok))

    def file(self):
        fd = descriptor_pb2.FileDescriptorProto(name=self.name)
        while self.peek() is not None:
            tok = self.next()
            if tok == 'syntax':
                self.expect('=')
                fd.syntax = self.next().strip('"')
                self.expect(';')
            elif tok == 'package':
                fd.package = self.next()
                self.expect(';')
            elif tok == 'import':
                fd.dependency.append(self.next().strip('"'))
                self.expect(';')
            elif tok == 'option':
                while self.next() != ';':
                    pass
            elif tok == 'message':
                self.message(fd.message_type.add())
            elif tok == 'enum':
                self.enum(fd.enum_type.add())
            elif tok == 'service':
                self.service(fd.service.add())
            else:
                raise SyntaxError('%s: unexpected %r' % (self.name, tok))
        return fd

    def enum(self, ed):
        ed.name = self.next()
        self.expect('{')
        while self.peek() != '}':
            v = ed.value.add(name=self.next())
            self.expect('=')
            v.number = int(self.next())
            self.expect(';')
        self.expect('}')

    def field(self, md, label, typ, oneof=None):
        f = md.field.add(name=self.next(), label=label)
        self.expect('=')
        f.number = int(self.next())
        self.expect(';')
        if typ in SCALARS:
            f.type = SCALARS[typ]
        else:
            f.type_name = typ  # resolved after the whole file is read
        if oneof is not None:
            f.oneof_index = oneof
        f.json_name = f.name

    def message(self, md):
        md.name = self.next()
        self.expect('{')
        while self.peek() != '}':
            tok = self.next()
            if tok == 'message':
                self.message(md.nested_type.add())
            elif tok == 'enum':
                self.enum(md.enum_type.add())
            elif tok == 'oneof':
                idx = len(md.oneof_decl)
                md.oneof_decl.add(name=self.next())
                self.expect('{')
                while self.peek() != '}':
                    self.field(md, FD.LABEL_OPTIONAL, self.next(), idx)
                self.expect('}')
            elif tok == 'repeated':
                self.field(md, FD.LABEL_REPEATED, self.next())
            else:
                self.field(md, FD.LABEL_OPTIONAL, tok)
        self.expect('}')

    def service(self, sd):
        sd.name = self.next()
        self.expect('{')
        while self.peek() != '}':
            self.expect('rpc')
            m = sd.method.add(name=self.next())
            self.expect('(')
            if self.peek() == 'stream':
                self.next()
                m.client_streaming = True
            m.input_type = self.next()
            self.expect(')')
            self.expect('returns')
            self.expect('(')
            if self.peek() == 'stream':
                self.next()
                m.server_streaming = True
            m.output_type = self.next()
            self.expect(')')
            if self.peek() == '{':
                self.next()
                self.expect('}')
            else:
                self.expect(';')
        self.expect('}')


def _names(fd):
    """Fully qualified message and enum names declared in fd."""
    out = {}

    def walk(prefix, msgs, enums):
        for e in enums:
            out['%s.%s' % (prefix, e.name)] = 'enum'
        for m in msgs:
            full = '%s.%s' % (prefix, m.name)
            out[full] = 'message'
            walk(full, m.nested_type, m.enum_type)

    walk('.' + fd.package if fd.package else '', fd.message_type, fd.enum_type)
    return out


def _resolve(fd, known):
    pkg = '.' + fd.package if fd.package else ''

    def find(name, scope):
        if name.startswith('.'):
            return name
        # innermost scope first, as protoc does
        parts = scope.split('.')
        while True:
            cand = '.'.join(parts + [name])
            if not cand.startswith('.'):
                cand = '.' + cand
            if cand in known:
                return cand
            if len(parts) <= 1:
                break
            parts.pop()
        raise SyntaxError('%s: unknown type %r' % (fd.name, name))

    def walk(scope, msgs):
        for m in msgs:
            full = '%s.%s' % (scope, m.name)
            for f in m.field:
                if f.type_name:
                    f.type_name = find(f.type_name, full)
                    f.type = FD.TYPE_ENUM if known[f.type_name] == 'enum' else FD.TYPE_MESSAGE
            walk(full, m.nested_type)

    walk(pkg, fd.message_type)
    for s in fd.service:
        for m in s.method:
            m.input_type = find(m.input_type, pkg)
            m.output_type = find(m.output_type, pkg)


def load(proto_dir, names=None):
    """Parse proto_dir's sw_*.proto (or names) into a pool; returns (pool, files)."""
    if names is None:
        names = sorted(n for n in os.listdir(proto_dir)
                       if n.startswith('sw_') and n.endswith('.proto'))
    fds = {}
    for n in names:
        with open(os.path.join(proto_dir, n)) as f:
            fds[n] = _Parser(_tokens(f.read()), n).file()
    known = {}
    for fd in fds.values():
        known.update(_names(fd))
    pool = descriptor_pool.DescriptorPool()
    done = set()

    def add(n):
        if n in done:
            return
        for dep in fds[n].dependency:
            add(dep)
        _resolve(fds[n], known)
        pool.Add(fds[n])
        done.add(n)

    for n in fds:
        add(n)
    return pool, fds


def message_class(pool, full_name):
    desc = pool.FindMessageTypeByName(full_name)
    if _get_class:
        return _get_class(desc)
    return message_factory.MessageFactory(pool).GetPrototype(desc)
