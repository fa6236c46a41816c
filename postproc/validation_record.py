"""One validation result as a machine-readable line, shared by every postproc script.

A postproc script calls record(...) for each compared quantity. It prints a human line and a line
    VALIDATION {"quantity": ..., "reference": ..., "result": ..., "error": ..., "tolerance": ..., "pass": ...}
that scripts/validate collects into docs/validation.md. A script exits non-zero when any record failed:
    sys.exit(0 if all_passed() else 1)
"""
import json

_results = []


def record(quantity, result, reference, error, tolerance, unit="", note=""):
    """Compare |error| <= tolerance; print and remember the outcome. Returns True when it passed.

    result/reference: numbers or short strings (e.g. a range "[5.57, 5.59]"); error: the number checked
    against tolerance (state in `quantity` or `note` whether it is absolute or relative).
    """
    ok = bool(abs(float(error)) <= float(tolerance))
    r = {"quantity": quantity, "result": result, "reference": reference, "error": float(error),
         "tolerance": float(tolerance), "unit": unit, "note": note, "pass": ok}
    _results.append(r)
    print(f"{'PASS' if ok else 'FAIL'}  {quantity}: {result} vs {reference} {unit}, error {float(error):.3g} "
          f"(tolerance {float(tolerance):.3g}){'  ' + note if note else ''}")
    print("VALIDATION " + json.dumps(r, default=float), flush=True)
    return ok


def all_passed():
    return all(r["pass"] for r in _results)


def pyplot():
    """matplotlib's pyplot on the file-only Agg back end, or None (saying so) where matplotlib is not
    installed: the records above stand without their plot."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib not installed: no plot")
        return None
    return plt


def save_plot(fig, path, dpi=120):
    """Lay out, write and name the plot file."""
    fig.tight_layout()
    fig.savefig(path, dpi=dpi)
    print(f"plot: {path}")
