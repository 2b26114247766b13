"""Writes pickle / torch-format fixtures with CPython's own pickle module (no torch needed).

Every expected value in the *.json files is computed here by Python (pickle.loads of the same bytes, or
plain Python indexing of the storage for tensors), not by the TypeScript code under test.
Run: python3 make_fixtures.py   (Python 3.8+, numpy)
"""
import collections
import io
import json
import math
import os
import pickle
import struct
import sys
import types
import zipfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))


def encode(value):
    """JSON with tags for what JSON cannot say."""
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, int):
        return value if -(2**53) <= value <= 2**53 else {"$bigint": str(value)}
    if isinstance(value, float):
        if math.isnan(value) or math.isinf(value):
            return {"$float": repr(value)}
        if value == 0 and math.copysign(1, value) < 0:
            return {"$float": "-0.0"}
        return value
    if isinstance(value, (bytes, bytearray, memoryview)):
        return {"$bytes": bytes(value).hex()}
    if isinstance(value, (list, tuple)):
        return [encode(v) for v in value]
    if isinstance(value, (set, frozenset)):
        return {"$set": sorted((encode(v) for v in value), key=json.dumps)}
    if isinstance(value, dict):
        return {str(k): encode(v) for k, v in value.items()}
    raise TypeError(type(value))


# ---------------------------------------------------------------- plain pickles, every protocol
shared = [1, 2, 3]
VALUES = {
    "none": None,
    "bools": [True, False],
    "ints": [0, 1, 255, 256, 65535, 65536, -1, -256, 2**31 - 1, -(2**31), 2**31, -(2**31) - 1, 2**53, 2**63, -(2**100)],
    "floats": [0.0, -0.0, 1.5, -2.25e-300, 1e308, float("inf"), float("-inf"), 0.1],
    "text": ["", "plain", "héllo ☃ 𝄞", "new\nline", "quote'\"back\\slash"],
    "bytes": [b"", b"\x00\xff\x80abc", bytearray(b"\x01\x02")],
    "tuple": (1, (2, (3, ())), "x"),
    "nested": {"a": {"b": [1, {"c": None}]}, "int_keys": {1: "one", 2: "two"}},
    "set": {1, 2, 3},
    "frozenset": frozenset({"a", "b"}),
    "shared": [shared, shared],
    "ordered": collections.OrderedDict([("z", 1), ("a", 2)]),
    "big_list": list(range(1200)),
    "long_text": "x" * 300,
}
expected = encode(VALUES)
for protocol in range(0, 6):
    data = pickle.dumps(VALUES, protocol=protocol)
    assert encode(pickle.loads(data)) == expected
    with open(os.path.join(HERE, f"values.p{protocol}.pkl"), "wb") as f:
        f.write(data)
with open(os.path.join(HERE, "values.json"), "w") as f:
    json.dump(expected, f, indent=1, sort_keys=True)

# Hand-written opcode sequences (Python 2 style text opcodes etc.), decoded by CPython.
HANDCRAFTED = [
    b"I01\n.",  # py2 True
    b"I00\n.",  # py2 False
    b"I-42\n.",
    b"L123456789012345678901234567890L\n.",
    b"F-1.25\n.",
    b"S'abc\\n\\x41\\'q'\n.",  # STRING with escapes
    b'S"dq"\n.',
    b"Vcaf\\u00e9 \\U0001d11e\n.",  # UNICODE raw-unicode-escape
    b"(I1\nI2\nl.",  # LIST
    b"(S'k'\nI5\nd.",  # DICT
    b"(I1\nI2\ntp0\ng0\n\x86.",  # TUPLE + PUT/GET + TUPLE2
    b"\x80\x02\x8a\x01\xff.",  # LONG1 -1
    b"\x80\x02\x8a\x02\x00\x80.",  # LONG1 -32768
    b"\x80\x02\x8a\x09\x00\x00\x00\x00\x00\x00\x00\x00\x01.",  # LONG1 2**64
    b"\x80\x02\x8b\x02\x00\x00\x00\xff\x7f.",  # LONG4 32767
    b"\x80\x02\x8a\x00.",  # LONG1 0
    b"\x80\x02]q\x00(K\x01K\x02e.",  # EMPTY_LIST APPENDS
    b"\x80\x02}q\x00(X\x01\x00\x00\x00aK\x01X\x01\x00\x00\x00bK\x02u.",  # SETITEMS
    b"\x80\x04\x95\x00\x00\x00\x00\x00\x00\x00\x00\x8f\x94(K\x01K\x02\x90.",  # FRAME EMPTY_SET MEMOIZE ADDITEMS
    b"(K\x01K\x02\x91.",  # FROZENSET
    b"K\x01K\x020K\x03.",  # POP
    b"K\x01(K\x02K\x031.",  # POP_MARK
    b"K\x072\x86.",  # DUP
    b"\x80\x05\x96\x03\x00\x00\x00\x00\x00\x00\x00abc\x98.",  # BYTEARRAY8 + READONLY_BUFFER
    b"\x80\x02G@\t!\xfbTD-\x18.",  # BINFLOAT pi
]
with open(os.path.join(HERE, "handcrafted.json"), "w") as f:
    json.dump([{"hex": p.hex(), "expected": encode(pickle.loads(p))} for p in HANDCRAFTED], f, indent=1)


# ---------------------------------------------------------------- torch-format checkpoints without torch
# Stand-ins registered under torch's module names so pickle writes the same GLOBALs torch.save writes.
def _module(name):
    mod = types.ModuleType(name)
    sys.modules[name] = mod
    return mod


torch_mod = _module("torch")
utils_mod = _module("torch._utils")
torch_mod._utils = utils_mod


def _rebuild_tensor_v2(*args):
    raise RuntimeError("stand-in only")


def _rebuild_parameter(*args):
    raise RuntimeError("stand-in only")


_rebuild_tensor_v2.__module__ = "torch._utils"
_rebuild_parameter.__module__ = "torch._utils"
utils_mod._rebuild_tensor_v2 = _rebuild_tensor_v2
utils_mod._rebuild_parameter = _rebuild_parameter

STORAGE_FORMATS = {  # name: (numpy dtype, dtype name)
    "FloatStorage": ("<f4", "float32"),
    "HalfStorage": ("<f2", "float16"),
    "BFloat16Storage": (None, "bfloat16"),
    "LongStorage": ("<i8", "int64"),
    "IntStorage": ("<i4", "int32"),
    "BoolStorage": ("u1", "bool"),
    "DoubleStorage": ("<f8", "float64"),
}
for name in STORAGE_FORMATS:
    cls = type(name, (), {"__module__": "torch"})
    setattr(torch_mod, name, cls)


class Storage:
    def __init__(self, key, kind, values):
        self.key, self.kind, self.values = key, kind, list(values)

    def raw(self, byteorder="little"):
        np_dtype, _ = STORAGE_FORMATS[self.kind]
        if self.kind == "BFloat16Storage":
            bits = (np.array(self.values, dtype="<f4").view("<u4") >> 16).astype("<u2")
            data = bits
        else:
            data = np.array(self.values, dtype=np_dtype)
        if byteorder == "big":
            data = data.astype(data.dtype.newbyteorder(">"))
        return data.tobytes()

    def value_at(self, i):
        v = self.values[i]
        if self.kind == "HalfStorage":
            return float(np.float16(v))
        if self.kind == "BFloat16Storage":
            return float((np.array([v], dtype="<f4").view("<u4") >> 16 << 16).view("<f4")[0])
        if self.kind == "BoolStorage":
            return 1 if v else 0
        return v


class Tensor:
    def __init__(self, storage, offset, size, stride, parameter=False):
        self.storage, self.offset, self.size, self.stride, self.parameter = storage, offset, tuple(size), tuple(stride), parameter

    def __reduce_ex__(self, protocol):
        # Same shape as torch: a tensor is _rebuild_tensor_v2(storage, offset, size, stride, requires_grad, hooks);
        # an nn.Parameter wraps it in _rebuild_parameter(tensor, requires_grad, hooks).
        args = (self.storage, self.offset, self.size, self.stride, False, collections.OrderedDict())
        if self.parameter:
            return (_rebuild_parameter, (_TensorCall(args), True, collections.OrderedDict()))
        return (_rebuild_tensor_v2, args)

    def expected(self):
        """Row-major element list computed by plain indexing of the storage (as_strided semantics)."""
        out = []

        def walk(dim, position):
            if dim == len(self.size):
                out.append(self.storage.value_at(position))
                return
            for i in range(self.size[dim]):
                walk(dim + 1, position + i * self.stride[dim])

        walk(0, self.offset)
        return {"dtype": STORAGE_FORMATS[self.storage.kind][1], "shape": list(self.size), "data": out}


class _TensorCall:
    def __init__(self, args):
        self.args = args

    def __reduce_ex__(self, protocol):
        return (_rebuild_tensor_v2, self.args)


def build_tree():
    base = Storage("0", "FloatStorage", [float(i) + 0.5 for i in range(12)])  # shared by three tensors
    half = Storage("1", "HalfStorage", [1.0, -2.5, 0.333, 65504.0, 6e-8])
    bf16 = Storage("2", "BFloat16Storage", [1.0, -3.14159, 1e20, 7.0])
    longs = Storage("3", "LongStorage", [42, -(2**40), 2**62])
    bools = Storage("4", "BoolStorage", [True, False, True])
    ints = Storage("5", "IntStorage", [-7, 8, 9, 10])
    doubles = Storage("6", "DoubleStorage", [math.pi, -1e-300])
    tensors = {
        "matrix": Tensor(base, 0, (4, 3), (3, 1)),
        "transposed": Tensor(base, 0, (3, 4), (1, 3)),  # non-contiguous view of the same storage
        "row_slice": Tensor(base, 3, (2, 3), (3, 1)),  # offset view, contiguous
        "column": Tensor(base, 1, (4,), (3,)),  # strided 1-D
        "expanded": Tensor(base, 2, (2, 3), (0, 1)),  # stride 0 (broadcast)
        "half": Tensor(half, 0, (5,), (1,)),
        "bf16": Tensor(bf16, 0, (2, 2), (2, 1), parameter=True),
        "long_scalar": Tensor(longs, 1, (), ()),
        "longs": Tensor(longs, 0, (3,), (1,)),
        "bools": Tensor(bools, 0, (3,), (1,)),
        "ints_tail": Tensor(ints, 2, (2,), (1,)),
        "doubles": Tensor(doubles, 0, (2,), (1,)),
        "empty": Tensor(base, 0, (0, 3), (3, 1)),
    }
    storages = [base, half, bf16, longs, bools, ints, doubles]
    tree = {"tensors": tensors, "meta": {"epoch": 3, "names": ["a", "b"]}}
    return tree, storages


def dump_zip(path, prefix, tree, protocol=2, byteorder="little"):
    buf = io.BytesIO()
    pickler = pickle.Pickler(buf, protocol=protocol)
    pickler.persistent_id = lambda obj: (
        ("storage", getattr(torch_mod, obj.kind), obj.key, "cpu", len(obj.values)) if isinstance(obj, Storage) else None
    )
    pickler.dump(tree)
    _, storages = build_tree()
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_STORED) as z:
        z.writestr(f"{prefix}/data.pkl", buf.getvalue())
        z.writestr(f"{prefix}/byteorder", byteorder)
        for s in storages:
            z.writestr(f"{prefix}/data/{s.key}", s.raw(byteorder))
        z.writestr(f"{prefix}/version", "3\n")


def dump_legacy(path, tree):
    out = io.BytesIO()
    pickle.dump(0x1950A86A20F9469CFC6C, out, protocol=2)
    pickle.dump(1001, out, protocol=2)
    pickle.dump({"protocol_version": 1001, "little_endian": True, "type_sizes": {"short": 2, "int": 4, "long": 4}}, out, protocol=2)
    pickler = pickle.Pickler(out, protocol=2)
    pickler.persistent_id = lambda obj: (
        ("storage", getattr(torch_mod, obj.kind), obj.key, "cpu", len(obj.values), None) if isinstance(obj, Storage) else None
    )
    pickler.dump(tree)
    _, storages = build_tree()
    pickle.dump([s.key for s in storages], out, protocol=2)
    for s in storages:
        out.write(struct.pack("<q", len(s.values)))
        out.write(s.raw())
    with open(path, "wb") as f:
        f.write(out.getvalue())


tree, _ = build_tree()
dump_zip(os.path.join(HERE, "tensors.pt"), "archive", tree)
dump_zip(os.path.join(HERE, "tensors.p4.pt"), "tensors", tree, protocol=4)
dump_zip(os.path.join(HERE, "tensors.bigendian.pt"), "archive", tree, byteorder="big")
dump_legacy(os.path.join(HERE, "tensors.legacy.pt"), tree)
with open(os.path.join(HERE, "tensors.json"), "w") as f:
    json.dump({"tensors": {k: t.expected() for k, t in tree["tensors"].items()}, "meta": tree["meta"]}, f, indent=1)


# ---------------------------------------------------------------- a whole pickled nn.Module look-alike
main_mod = _module("fake_models")
nn_mod = _module("torch.nn.modules.linear")


class Module:
    def __init__(self, params, buffers, modules, non_persistent=()):
        self.training = False
        self._parameters = collections.OrderedDict(params)
        self._buffers = collections.OrderedDict(buffers)
        self._non_persistent_buffers_set = set(non_persistent)
        self._modules = collections.OrderedDict(modules)


class Linear(Module):
    pass


class Net(Module):
    pass


Linear.__module__ = "torch.nn.modules.linear"
Linear.__qualname__ = "Linear"
nn_mod.Linear = Linear
Net.__module__ = "fake_models"
Net.__qualname__ = "Net"
main_mod.Net = Net

w = Storage("0", "FloatStorage", [1.0, 2.0, 3.0, 4.0, 5.0, 6.0])
b = Storage("1", "FloatStorage", [0.5, -0.5])
rm = Storage("2", "FloatStorage", [9.0, 8.0])
cache = Storage("3", "FloatStorage", [7.0])
steps = Storage("4", "LongStorage", [5])
net = Net(
    params=[("scale", Tensor(b, 1, (1,), (1,), parameter=True)), ("unused", None)],
    buffers=[("running", Tensor(rm, 0, (2,), (1,))), ("cache", Tensor(cache, 0, (1,), (1,))), ("steps", Tensor(steps, 0, (), ()))],
    modules=[
        ("inner", Linear([("weight", Tensor(w, 0, (2, 3), (3, 1), parameter=True)), ("bias", Tensor(b, 0, (2,), (1,), parameter=True))], [], [])),
        ("missing", None),
    ],
    non_persistent=["cache"],
)
buf = io.BytesIO()
pickler = pickle.Pickler(buf, protocol=2)
pickler.persistent_id = lambda obj: (
    ("storage", getattr(torch_mod, obj.kind), obj.key, "cpu", len(obj.values)) if isinstance(obj, Storage) else None
)
pickler.dump(net)
with zipfile.ZipFile(os.path.join(HERE, "module.pth"), "w", compression=zipfile.ZIP_STORED) as z:
    z.writestr("module/data.pkl", buf.getvalue())
    z.writestr("module/byteorder", "little")
    for s in (w, b, rm, cache, steps):
        z.writestr(f"module/data/{s.key}", s.raw())
# What module.state_dict() would return: own params (None skipped), persistent buffers, then children.
expected_sd = collections.OrderedDict()
expected_sd["scale"] = net._parameters["scale"].expected()
expected_sd["running"] = net._buffers["running"].expected()
expected_sd["steps"] = net._buffers["steps"].expected()
expected_sd["inner.weight"] = net._modules["inner"]._parameters["weight"].expected()
expected_sd["inner.bias"] = net._modules["inner"]._parameters["bias"].expected()
with open(os.path.join(HERE, "module.json"), "w") as f:
    json.dump({"names": list(expected_sd), "tensors": expected_sd}, f, indent=1)
print("ok")
