# LBM solver library sources: partition, AA halo exchange (launches pack/unpack kernels), time loop,
# case schema and run driver, checkpoints, field output through the io layer.
list(APPEND TESSERA_SOLVER_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/src/partition.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/simulation.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/app_schema.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/app_run.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/simulation_checkpoint.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/field_output.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/probes.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/initial.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/energy_series.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/geometry.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/stl.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/voxel_mask.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/forces.cpp)
list(APPEND TESSERA_SOLVER_KERNEL_SOURCES ${CMAKE_CURRENT_LIST_DIR}/src/aa_halo.cpp)
