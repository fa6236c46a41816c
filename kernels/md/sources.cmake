# md kernels. All sources are listed as kernel sources (nvcc in CUDA builds); lattice.cpp and
# nose_hoover.cpp are host-only set-up code and compile unchanged with either compiler.
list(APPEND TESSERA_KERNEL_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/src/particles.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/neighbor.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/potential.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/bond_list.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/forces.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/integrate.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/msd.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/walls.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/nose_hoover.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/lattice.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/ghost_pack.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/migrate.cpp)
# Tuned CUDA paths (device only; compiled to stubs that throw in a build without CUDA).
list(APPEND TESSERA_KERNEL_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/src/forces_cuda.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/step_graph_cuda.cpp)
