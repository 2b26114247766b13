"""Writes a torch.save-format zip (stored entries, protocol 2 pickle) of N float32 tensors of M MiB each,
without torch, for the weights benchmark.  Usage: python3 make-torch-zip.py OUT.pt N MIB"""
import collections, io, pickle, sys, types, zipfile

out, count, mib = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
torch = types.ModuleType("torch"); utils = types.ModuleType("torch._utils")
sys.modules["torch"], sys.modules["torch._utils"] = torch, utils
def _rebuild_tensor_v2(*a): raise RuntimeError
_rebuild_tensor_v2.__module__ = "torch._utils"; utils._rebuild_tensor_v2 = _rebuild_tensor_v2
FloatStorage = type("FloatStorage", (), {"__module__": "torch"}); torch.FloatStorage = FloatStorage
numel = mib * 1024 * 1024 // 4

class Storage:
    def __init__(self, key): self.key = key
class Tensor:
    def __init__(self, s): self.s = s
    def __reduce_ex__(self, p): return (_rebuild_tensor_v2, (self.s, 0, (numel // 1024, 1024), (1024, 1), False, collections.OrderedDict()))

state = collections.OrderedDict((f"layer.{i}.weight", Tensor(Storage(str(i)))) for i in range(count))
buf = io.BytesIO(); p = pickle.Pickler(buf, protocol=2)
p.persistent_id = lambda o: ("storage", FloatStorage, o.key, "cpu", numel) if isinstance(o, Storage) else None
p.dump(state)
chunk = bytes(range(256)) * 4096  # 1 MiB pattern
with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_STORED, allowZip64=True) as z:
    z.writestr("archive/data.pkl", buf.getvalue()); z.writestr("archive/byteorder", "little")
    for i in range(count):
        with z.open(f"archive/data/{i}", "w", force_zip64=True) as f:
            for _ in range(mib): f.write(chunk)
