"""Opens io_demo_writer's output with VTK's own readers (Debian python3-paraview brings VTK 9.2; python3-vtk9 also works) and checks array names,
grid dimensions, spacing, origin, time values and values against the analytic fields.

- XDMF time series: vtkXdmf3Reader when this VTK has it. Debian 12's python3-vtk9 (9.1) is built
  without the Xdmf3 module; then the XDMF is checked structurally instead (every HDF5 reference
  resolves, with the dimensions and number types it declares) and ParaView's reader is exercised
  by check_pvpython.py.
- The .pvd collection of .vti/.pvti files: vtkXMLImageDataReader / vtkXMLPImageDataReader.
usage: check_vtk.py OUTDIR
"""
import os
import sys
import xml.etree.ElementTree as ET

try:
    import h5py
    import numpy as np
    import vtk
    from vtk.util.numpy_support import vtk_to_numpy
except ImportError as e:  # CTest reports exit code 77 as "skipped" (e.g. the GPU machine has no VTK)
    print(f"SKIP: {e}: install python3-paraview (or python3-vtk9) and python3-h5py")
    sys.exit(77)

CELLS = (12, 10, 6)
ORIGIN = (0.5, -1.0, 2.0)
SPACING = (0.25, 0.5, 1.0)
TIMES = [0.0, 0.5, 1.0]


def analytic(t):
    """density [nz][ny][nx] and velocity [nz][ny][nx][3] at cell centres."""
    x, y, z = (ORIGIN[a] + (np.arange(CELLS[a]) + 0.5) * SPACING[a] for a in range(3))
    Z, Y, X = np.meshgrid(z, y, x, indexing="ij")
    rho = 1 + 0.5 * X + 0.25 * Y - 0.125 * Z + t
    vel = np.stack([X, Y * t, Z], axis=-1)
    return rho, vel


def check_image(img, t, where):
    dims = img.GetDimensions()
    assert dims == tuple(c + 1 for c in CELLS), (where, dims)  # points = cells + 1
    assert np.allclose(img.GetSpacing(), SPACING), (where, img.GetSpacing())
    assert np.allclose(img.GetOrigin(), ORIGIN), (where, img.GetOrigin())
    cd = img.GetCellData()
    names = sorted(cd.GetArrayName(i) for i in range(cd.GetNumberOfArrays()))
    assert names == ["density", "velocity"], (where, names)
    rho, vel = analytic(t)
    got_rho = vtk_to_numpy(cd.GetArray("density")).reshape(CELLS[::-1])
    got_vel = vtk_to_numpy(cd.GetArray("velocity")).reshape(CELLS[::-1] + (3,))
    assert np.allclose(got_rho, rho, rtol=0, atol=1e-12), (where, np.abs(got_rho - rho).max())
    assert np.allclose(got_vel, vel, rtol=0, atol=1e-12), where


def check_xdmf_with_vtk(path):
    from vtkmodules.vtkIOXdmf3 import vtkXdmf3Reader  # noqa: raises ImportError when absent
    r = vtkXdmf3Reader()
    r.SetFileName(path)
    r.UpdateInformation()
    info = r.GetOutputInformation(0)
    key = vtk.vtkStreamingDemandDrivenPipeline.TIME_STEPS()
    times = [info.Get(key, i) for i in range(info.Length(key))]
    assert np.allclose(times, TIMES), times
    for t in TIMES:
        r.UpdateTimeStep(t)
        check_image(r.GetOutputDataObject(0), t, f"{path} t={t}")
    print("vtkXdmf3Reader OK:", path)


def check_xdmf_structure(path):
    base = os.path.dirname(path)
    root = ET.parse(path).getroot()
    assert root.tag == "Xdmf" and root.get("Version") == "3.0"
    coll = root.find("Domain/Grid")
    assert coll.get("GridType") == "Collection" and coll.get("CollectionType") == "Temporal"
    grids = coll.findall("Grid")
    assert [float(g.find("Time").get("Value")) for g in grids] == TIMES
    for g, t in zip(grids, TIMES):
        topo = g.find("Topology")
        assert topo.get("TopologyType") == "3DCoRectMesh"
        assert [int(v) for v in topo.get("Dimensions").split()] == [c + 1 for c in CELLS[::-1]]
        geo = g.find("Geometry")
        assert geo.get("GeometryType") == "ORIGIN_DXDYDZ"
        o, h = ([float(v) for v in d.text.split()] for d in geo.findall("DataItem"))
        assert np.allclose(o, ORIGIN[::-1]) and np.allclose(h, SPACING[::-1]), (o, h)
        rho, vel = analytic(t)
        seen = {}
        for a in g.findall("Attribute"):
            assert a.get("Center") == "Cell"
            item = a.find("DataItem")
            fname, dset = item.text.strip().split(":")
            with h5py.File(os.path.join(base, fname), "r") as f:
                data = f[dset][...]
            assert list(data.shape) == [int(v) for v in item.get("Dimensions").split()], a.get("Name")
            assert data.dtype.itemsize == int(item.get("Precision"))
            seen[a.get("Name")] = (a.get("AttributeType"), data)
        assert sorted(seen) == ["density", "velocity"]
        assert seen["density"][0] == "Scalar" and seen["velocity"][0] == "Vector"
        assert np.allclose(seen["density"][1], rho, atol=1e-12) and np.allclose(seen["velocity"][1], vel, atol=1e-12)
    print("XDMF structure OK (this VTK has no vtkXdmf3Reader):", path)


def check_pvd(path):
    base = os.path.dirname(path)
    entries = ET.parse(path).getroot().findall("Collection/DataSet")
    assert [float(e.get("timestep")) for e in entries] == TIMES
    for e, t in zip(entries, TIMES):
        f = os.path.join(base, e.get("file"))
        r = vtk.vtkXMLPImageDataReader() if f.endswith(".pvti") else vtk.vtkXMLImageDataReader()
        r.SetFileName(f)
        r.Update()
        check_image(r.GetOutput(), t, f)
    print("VTK XML .pvd/.pvti/.vti OK:", path)


def main(outdir):
    xdmf = os.path.join(outdir, "flow.xdmf")
    try:
        check_xdmf_with_vtk(xdmf)
    except ImportError:
        check_xdmf_structure(xdmf)
    check_pvd(os.path.join(outdir, "flow.pvd"))


if __name__ == "__main__":
    main(sys.argv[1])
