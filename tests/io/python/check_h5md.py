"""Checks particles.h5 written by io_demo_writer against the H5MD 1.1 layout, with h5py.

H5MD 1.1 (nongnu.org/h5md/h5md.html): /h5md with version [1, 1], author and creator groups with a
name; /particles/<group>/box with dimension and boundary; time-dependent elements are groups with
step, time and value datasets whose first dimension is the (extendable) frame index.
usage: check_h5md.py OUTDIR
"""
import os
import sys

try:
    import h5py
    import numpy as np
except ImportError as e:  # CTest reports exit code 77 as "skipped" (e.g. the GPU machine has no h5py)
    print(f"SKIP: {e}: install python3-h5py and python3-numpy")
    sys.exit(77)

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "..", "postproc"))
import tessera_io  # noqa: E402

def main(outdir):
    path = os.path.join(outdir, "particles.h5")
    n, frames = 20, 2
    with h5py.File(path, "r") as f:
        assert list(f["h5md"].attrs["version"]) == [1, 1], f["h5md"].attrs["version"]
        assert f["h5md/author"].attrs["name"] == "io_demo_writer"
        assert f["h5md/creator"].attrs["name"] == "Tessera"
        assert len(f["h5md/creator"].attrs["version"]) > 0
        g = f["particles/all"]
        box = g["box"]
        assert int(box.attrs["dimension"]) == 3
        assert [b.decode() if isinstance(b, bytes) else b for b in box.attrs["boundary"]] == ["periodic"] * 3
        assert box["edges/value"].shape == (frames, 3)
        for name, inner, kind in (("position", (n, 3), "f"), ("velocity", (n, 3), "f"), ("id", (n,), "i"),
                                  ("species", (n,), "i")):
            el = g[name]
            assert isinstance(el, h5py.Group), name
            assert el["value"].shape == (frames,) + inner, (name, el["value"].shape)
            assert el["value"].dtype.kind == kind, (name, el["value"].dtype)
            assert el["value"].maxshape[0] is None, f"{name}/value must be extendable along frames"
            assert list(el["step"][...]) == [0, 5], (name, el["step"][...])
            assert np.allclose(el["time"][...], [0.0, 0.25])
        q = np.arange(n)
        for fr in range(frames):
            assert (g["id/value"][fr] == q).all(), "particles must be ordered by id"
            pos = g["position/value"][fr]
            assert np.array_equal(pos, np.stack([0.5 * q, np.full(n, float(fr)), -0.25 * q], axis=1))
            assert np.array_equal(g["velocity/value"][fr], np.stack([q, 2.0 * q, 3.0 * q], axis=1))
            assert (g["species/value"][fr] == q % 2).all()
    last = tessera_io.read_h5md(path, -1)
    assert last.step == 5 and last.time == 0.25 and last.position.shape == (n, 3)
    print("H5MD layout OK:", path)


if __name__ == "__main__":
    main(sys.argv[1])
