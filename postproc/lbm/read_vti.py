"""Read the .vti files written by `lbm` (VTK XML image data, raw appended, UInt64 headers)."""
import re

import numpy as np


def read_vti(path):
    """Return (extent (nx, ny, nz), spacing, {name: array}) with arrays shaped (nz, ny, nx[, 3])."""
    data = open(path, "rb").read()
    head, _, rest = data.partition(b"<AppendedData encoding=\"raw\">")
    head = head.decode()
    ext = [int(v) for v in re.search(r'WholeExtent="([^"]+)"', head).group(1).split()]
    n = (ext[1] - ext[0], ext[3] - ext[2], ext[5] - ext[4])
    dx = float(re.search(r'Spacing="([^"]+)"', head).group(1).split()[0])
    base = rest.index(b"_") + 1
    out = {}
    for m in re.finditer(r'<DataArray type="(\w+)" Name="(\w+)"(?: NumberOfComponents="(\d+)")? format="appended" offset="(\d+)"', head):
        typ, name, comps, off = m.group(1), m.group(2), int(m.group(3) or 1), int(m.group(4))
        dtype = {"Float32": np.float32, "UInt8": np.uint8}[typ]
        nbytes = int(np.frombuffer(rest, np.uint64, 1, base + off)[0])
        arr = np.frombuffer(rest, dtype, nbytes // np.dtype(dtype).itemsize, base + off + 8)
        shape = (n[2], n[1], n[0]) + ((comps,) if comps > 1 else ())
        out[name] = arr.reshape(shape)
    return n, dx, out
