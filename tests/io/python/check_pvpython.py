"""Opens io_demo_writer's output the way a ParaView user does (run with ParaView's pvpython):
the grid XDMF time series and the particle XDMF with the Xdmf3 reader, the .pvd with the PVD reader;
checks time values, array names, grid dimensions/spacing/origin and values.
usage: pvpython check_pvpython.py OUTDIR
"""
import os
import sys

import numpy as np
from paraview import servermanager as sm
from paraview.simple import PVDReader, Xdmf3ReaderS
from vtkmodules.util.numpy_support import vtk_to_numpy

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_vtk import CELLS, TIMES, analytic, check_image  # noqa: E402  (plain numpy/vtk helpers)


def first_block(obj):
    while obj.IsA("vtkMultiBlockDataSet") or obj.IsA("vtkPartitionedDataSetCollection"):
        obj = obj.GetBlock(0)
    return obj


def check_grid_series(path):
    r = Xdmf3ReaderS(FileName=[path])
    r.UpdatePipelineInformation()
    times = list(r.TimestepValues)
    assert np.allclose(times, TIMES), times
    for t in TIMES:
        r.UpdatePipeline(time=t)
        check_image(first_block(sm.Fetch(r)), t, f"ParaView Xdmf3 {path} t={t}")
    print("ParaView Xdmf3 grid series OK:", path)


def check_slice(path):
    r = Xdmf3ReaderS(FileName=[path])
    r.UpdatePipelineInformation()
    assert np.allclose(list(r.TimestepValues), TIMES)
    r.UpdatePipeline(time=1.0)
    img = first_block(sm.Fetch(r))
    assert img.GetDimensions() == (7, 6, 2), img.GetDimensions()  # 6 x 5 x 1 cells
    assert np.allclose(img.GetSpacing(), (0.5, 1.0, 1.0)), img.GetSpacing()
    assert np.allclose(img.GetOrigin(), (0.5, -1.0, 5.0)), img.GetOrigin()
    rho, _ = analytic(1.0)
    got = vtk_to_numpy(img.GetCellData().GetArray("density")).reshape(5, 6)
    assert np.allclose(got, rho[3, ::2, ::2], atol=1e-5), np.abs(got - rho[3, ::2, ::2]).max()
    print("ParaView Xdmf3 slice OK:", path)


def check_particles(path):
    r = Xdmf3ReaderS(FileName=[path])
    r.UpdatePipelineInformation()
    assert np.allclose(list(r.TimestepValues), [0.0, 0.25]), list(r.TimestepValues)
    r.UpdatePipeline(time=0.25)
    pts = first_block(sm.Fetch(r))
    n = 20
    assert pts.GetNumberOfPoints() == n, pts.GetNumberOfPoints()
    q = np.arange(n)
    xyz = vtk_to_numpy(pts.GetPoints().GetData())
    assert np.allclose(xyz, np.stack([0.5 * q, np.ones(n), -0.25 * q], axis=1)), xyz[:3]
    pd = pts.GetPointData()
    names = sorted(pd.GetArrayName(i) for i in range(pd.GetNumberOfArrays()))
    assert names == ["id", "species", "velocity"], names
    assert np.array_equal(vtk_to_numpy(pd.GetArray("id")), q)
    assert np.allclose(vtk_to_numpy(pd.GetArray("velocity")), np.stack([q, 2.0 * q, 3.0 * q], axis=1))
    print("ParaView Xdmf3 particles OK:", path)


def check_pvd(path):
    r = PVDReader(FileName=path)
    r.UpdatePipelineInformation()
    assert np.allclose(list(r.TimestepValues), TIMES)
    r.UpdatePipeline(time=0.5)
    check_image(first_block(sm.Fetch(r)), 0.5, f"ParaView PVD {path}")
    print("ParaView PVD OK:", path)


def main(outdir):
    check_grid_series(os.path.join(outdir, "flow.xdmf"))
    check_slice(os.path.join(outdir, "slice.xdmf"))
    check_particles(os.path.join(outdir, "particles.xdmf"))
    check_pvd(os.path.join(outdir, "flow.pvd"))


if __name__ == "__main__":
    main(sys.argv[1])
