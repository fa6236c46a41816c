"""Renders a PNG of a Tessera run with ParaView, headless.

    pvbatch scripts/paraview_screenshot.py out/flow.xdmf density shot.png [--time T] [--slice z]

Opens the XDMF time series, colours a mid-plane slice (normal along --slice, default z) by the given
cell array at time T (default: the last step) and saves the image. For particles, pass the particle
.xdmf and an array such as 'species': the points are drawn as spheres.
"""
import argparse

from paraview.simple import (ColorBy, GetActiveViewOrCreate, GetAnimationScene, Render, ResetCamera,
                             SaveScreenshot, Show, Slice, Xdmf3ReaderS)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("xdmf")
    ap.add_argument("array")
    ap.add_argument("png")
    ap.add_argument("--time", type=float, default=None)
    ap.add_argument("--slice", choices="xyz", default="z")
    ap.add_argument("--size", type=int, nargs=2, default=(1200, 900))
    a = ap.parse_args()

    reader = Xdmf3ReaderS(FileName=[a.xdmf])
    reader.UpdatePipelineInformation()
    times = list(reader.TimestepValues) or [0.0]
    t = times[-1] if a.time is None else a.time
    scene = GetAnimationScene()
    scene.UpdateAnimationUsingDataTimeSteps()
    scene.AnimationTime = t
    view = GetActiveViewOrCreate("RenderView")
    view.ViewSize = list(a.size)

    reader.UpdatePipeline(t)
    info = reader.GetDataInformation()
    # Particles (XDMF Polyvertex): one vertex per point; some readers report no cells for them.
    points = info.GetNumberOfCells() in (0, info.GetNumberOfPoints())
    if points:
        disp = Show(reader, view)
        disp.SetRepresentationType("Point Gaussian")
        b = info.GetBounds()
        disp.GaussianRadius = 0.012 * max(b[1] - b[0], b[3] - b[2], b[5] - b[4])  # ~ half a particle in a dense liquid
        ColorBy(disp, ("POINTS", a.array))
    else:
        bounds = reader.GetDataInformation().GetBounds()
        axis = "xyz".index(a.slice)
        centre = [(bounds[2 * d] + bounds[2 * d + 1]) / 2 for d in range(3)]
        normal = [1.0 if d == axis else 0.0 for d in range(3)]
        sl = Slice(Input=reader)
        sl.SliceType = "Plane"
        sl.SliceType.Origin = centre
        sl.SliceType.Normal = normal
        disp = Show(sl, view)
        ColorBy(disp, ("CELLS", a.array))
    disp.RescaleTransferFunctionToDataRange(True, False)
    disp.SetScalarBarVisibility(view, True)
    view.ViewTime = t
    ResetCamera(view)
    Render(view)
    SaveScreenshot(a.png, view, ImageResolution=list(a.size))
    print(f"wrote {a.png} ({a.array} at t = {t})")


if __name__ == "__main__":
    main()
