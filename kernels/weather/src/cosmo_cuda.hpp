// The tuned CUDA paths of the COSMO stencils (hdiff_cuda.cpp, vadv_cuda.cpp), private to the weather
// kernels: hdiff_fused and vadv_columns call them when the Exec is on the device in CUDA builds.
// Both evaluate the same point formulas as the portable paths (HdiffPoint, VadvStep), so that the
// device results are bit-identical to hdiff_portable / vadv_columns_portable(_twisted) on the device
// (tests/weather/test_cosmo_tuned.cpp checks this on random inputs).
#pragma once
#include "tessera/core/exec.hpp"
#include "tessera/weather/grid.hpp"
#include "tessera/weather/vadv.hpp"

namespace tessera::weather::detail {

// A warp per 60 outputs (two points per lane; 28 outputs of one point per lane where nx or the ghost width
// is odd) and a strip of 4, 6 or 12 rows (by size) loaded into registers at once: the Laplacian, the
// limited fluxes and the update in one kernel, neighbours through shuffles and registers; warps cut from
// the sequence of the strips' first rows (hdiff_cuda.cpp). TESSERA_HDIFF_KERNEL names a shape and
// overrides the size rule.
void hdiff_cuda(const exec::Exec& ex, const Grid& gr, const double* in, const double* coeff, double coeff0,
                double* out);

// The column solve with its scratch on chip (no scratch in device memory): up to 80 levels the twisted
// Thomas solve, two threads per column (bit-identical to vadv_columns_portable_twisted on the device),
// deeper columns one thread per column (bit-identical to vadv_columns_portable); the kernel is chosen in
// vadv_cuda.cpp (TESSERA_VADV_KERNEL overrides). Returns false (nothing launched) when a column of gr.nz
// levels does not fit in the shared memory of a block; the caller then runs the portable path.
bool vadv_cuda(const exec::Exec& ex, const Grid& gr, const VadvParams& vp, const double* in, const double* w,
               double* out);

// What hdiff_last_form() / vadv_last_form() return next (a string literal): each path notes its form as it
// launches (cosmo_form.cpp).
enum class Stencil { Hdiff, Vadv };
void note_form(Stencil stencil, const char* form);
inline void hdiff_note_form(const char* form) { note_form(Stencil::Hdiff, form); }
inline void vadv_note_form(const char* form) { note_form(Stencil::Vadv, form); }

}  // namespace tessera::weather::detail
