"""Read Tessera output from Python (h5py + numpy). See docs/output.md.

    import tessera_io as tio
    for step in tio.read_series("out/flow.xdmf"):          # every output step of a run
        f = tio.read_fields(step.h5)                         # dict-like: f["density"] is [nz][ny][nx]
        x, y, z = tio.cell_centres(f)                        # 1-D coordinates of the cells
    frame = tio.read_h5md("out/particles.h5", frame=-1)     # positions, velocities, ids, species
"""
from __future__ import annotations

import os
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field

import h5py
import numpy as np


@dataclass
class Fields:
    """One grid output file: arrays are [nz][ny][nx] (scalars) or [nz][ny][nx][ncomp]."""
    path: str
    step: int
    time: float
    origin: np.ndarray       # (x, y, z) lower corner of cell 0
    spacing: np.ndarray      # (x, y, z)
    cells: np.ndarray        # (x, y, z)
    units: dict = field(default_factory=dict)
    arrays: dict = field(default_factory=dict)
    case_text: str = ""

    def __getitem__(self, name):
        return self.arrays[name]

    def names(self):
        return sorted(self.arrays)


def _str(v):
    return v.decode() if isinstance(v, bytes) else str(v)


def read_fields(path: str, names=None) -> Fields:
    """Reads the datasets of /fields (all, or those in `names`) and the grid attributes."""
    with h5py.File(path, "r") as f:
        if _str(f.attrs.get("format", "")) != "tessera-fields":
            raise ValueError(f"{path}: not a Tessera grid output file (format attribute is not tessera-fields)")
        out = Fields(path=path, step=int(f.attrs["step"]), time=float(f.attrs["time"]),
                     origin=np.array(f.attrs["origin"]), spacing=np.array(f.attrs["spacing"]),
                     cells=np.array(f.attrs["cells"]), case_text=_str(f.attrs["case_text"]))
        for name in f["fields"]:
            if names is not None and name not in names:
                continue
            d = f["fields"][name]
            out.arrays[name] = d[...]
            out.units[name] = _str(d.attrs["units"])
    return out


def cell_centres(f: Fields):
    """1-D arrays of cell-centre coordinates along x, y and z."""
    return tuple(f.origin[a] + (np.arange(f.cells[a]) + 0.5) * f.spacing[a] for a in range(3))


@dataclass
class SeriesStep:
    step: int
    time: float
    h5: str   # absolute path of the HDF5 file of this step


def read_series(xdmf_path: str):
    """The steps listed in a Tessera grid XDMF file (ordered as written)."""
    root = ET.parse(xdmf_path).getroot()
    base = os.path.dirname(os.path.abspath(xdmf_path))
    steps = []
    for g in root.iter("Grid"):
        if g.get("GridType") != "Uniform":
            continue
        t = float(g.find("Time").get("Value"))
        item = g.find("Attribute/DataItem")
        h5file = item.text.strip().split(":")[0]
        steps.append(SeriesStep(int(g.get("Name").split("_")[-1]), t, os.path.join(base, h5file)))
    return steps


@dataclass
class ParticleFrame:
    step: int
    time: float
    box_edges: np.ndarray
    id: np.ndarray
    species: np.ndarray
    position: np.ndarray          # [N][3]
    velocity: np.ndarray | None   # [N][3] or None


def read_h5md(path: str, frame: int = -1, group: str = "all") -> ParticleFrame:
    """One frame of an H5MD file (particles ordered by id in Tessera's files)."""
    with h5py.File(path, "r") as f:
        g = f["particles"][group]
        vel = g["velocity/value"][frame] if "velocity" in g else None
        return ParticleFrame(step=int(g["position/step"][frame]), time=float(g["position/time"][frame]),
                             box_edges=g["box/edges/value"][frame], id=g["id/value"][frame],
                             species=g["species/value"][frame], position=g["position/value"][frame],
                             velocity=vel)


def read_checkpoint_meta(path: str) -> dict:
    """Step, time, case hash, solver, rank count and the names of the arrays of a checkpoint."""
    with h5py.File(path, "r") as f:
        meta = {k: (_str(v) if isinstance(v, (bytes, str)) else v.item() if hasattr(v, "item") else v)
                for k, v in f.attrs.items() if k != "case_text"}
        for grp in ("fields", "local", "global"):
            meta[grp] = sorted(f[grp]) if grp in f else []
    return meta
