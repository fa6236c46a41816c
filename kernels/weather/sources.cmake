# weather kernels: shallow water on the C-grid, COSMO stencils (compiled by nvcc in CUDA builds).
list(APPEND TESSERA_KERNEL_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/src/boundary.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/sw_step.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/hdiff.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/vadv.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/tracer_advection.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/sw_diagnostics.cpp)
# The CUDA shared-memory shallow-water stage (a dispatcher that declines in host-only builds).
list(APPEND TESSERA_KERNEL_SOURCES ${CMAKE_CURRENT_LIST_DIR}/src/sw_tiled.cpp)
