# LBM kernels: one translation unit per lattice (portable reference, both back ends) and the tuned
# CUDA path. All are compiled by nvcc in CUDA builds.
list(APPEND TESSERA_KERNEL_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/src/lattice_state.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/lattice_d2q9.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/lattice_d3q19.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/lattice_d3q27.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/tuned_cuda.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/tuned_pair_cuda.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/tuned_fused_cuda.cpp)
# Interpolated (Bouzidi) bounce-back: link search, the pass after each step and the force correction.
list(APPEND TESSERA_KERNEL_SOURCES ${CMAKE_CURRENT_LIST_DIR}/src/interpolated_bounce_back.cpp)
# Every LBM kernel shape must round alike (tests/lbm/test_tuned.cpp and the sub-box, rank and restart tests
# compare them bit for bit), so nvcc does not fuse a * b + c on its own here (-fmad=false): left to
# contraction it fused one or the other product of a * b + c * d depending on the surrounding kernel. The
# collision fuses where it pays, explicitly (mad() in collision.hpp), the same in every kernel.
if(TESSERA_ENABLE_CUDA)
  set_property(SOURCE ${CMAKE_CURRENT_LIST_DIR}/src/lattice_state.cpp ${CMAKE_CURRENT_LIST_DIR}/src/lattice_d2q9.cpp
               ${CMAKE_CURRENT_LIST_DIR}/src/lattice_d3q19.cpp ${CMAKE_CURRENT_LIST_DIR}/src/lattice_d3q27.cpp
               ${CMAKE_CURRENT_LIST_DIR}/src/tuned_cuda.cpp ${CMAKE_CURRENT_LIST_DIR}/src/tuned_pair_cuda.cpp
               ${CMAKE_CURRENT_LIST_DIR}/src/tuned_fused_cuda.cpp
               ${CMAKE_CURRENT_LIST_DIR}/src/interpolated_bounce_back.cpp
               APPEND PROPERTY COMPILE_OPTIONS $<$<COMPILE_LANGUAGE:CUDA>:-fmad=false>)
endif()
