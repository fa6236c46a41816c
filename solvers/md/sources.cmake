# md solver library sources (plain C++: kernels are launched through Tessera::kernels).
list(APPEND TESSERA_SOLVER_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/src/simulation.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/simulation_checkpoint.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/case_config.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/system_builder.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/output.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/run.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/decomposition.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/ghost_exchange.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/simulation_decomposed.cpp)
