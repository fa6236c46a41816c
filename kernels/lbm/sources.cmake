# LBM kernels: one translation unit per lattice (portable reference, both back ends) and the tuned
# CUDA path. All are compiled by nvcc in CUDA builds.
list(APPEND TESSERA_KERNEL_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/src/lattice_state.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/lattice_d2q9.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/lattice_d3q19.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/lattice_d3q27.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/tuned_cuda.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/tuned_pair_cuda.cpp)
# Interpolated (Bouzidi) bounce-back: link search, the pass after each step and the force correction.
list(APPEND TESSERA_KERNEL_SOURCES ${CMAKE_CURRENT_LIST_DIR}/src/interpolated_bounce_back.cpp)
