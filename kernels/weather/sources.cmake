# weather kernels: shallow water on the C-grid, COSMO stencils (compiled by nvcc in CUDA builds).
list(APPEND TESSERA_KERNEL_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/src/boundary.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/sw_step.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/hdiff.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/vadv.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/cosmo_form.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/tracer_advection.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/sw_diagnostics.cpp)
# The CUDA shared-memory shallow-water stage (a dispatcher that declines in host-only builds).
list(APPEND TESSERA_KERNEL_SOURCES ${CMAKE_CURRENT_LIST_DIR}/src/sw_tiled.cpp)
# The tuned CUDA paths of the COSMO stencils (hdiff whole-strip warps, vadv on-chip Thomas): CUDA builds only; hdiff.cpp
# and vadv.cpp dispatch to them when the Exec is on the device.
if(TESSERA_ENABLE_CUDA)
  list(APPEND TESSERA_KERNEL_SOURCES ${CMAKE_CURRENT_LIST_DIR}/src/hdiff_cuda.cpp
       ${CMAKE_CURRENT_LIST_DIR}/src/vadv_cuda.cpp)
endif()
