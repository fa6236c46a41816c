# weather solver library sources (plain C++: kernels are launched through Tessera::kernels).
list(APPEND TESSERA_SOLVER_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/src/config.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/initial.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/model.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/output.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/run.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/spectrum.cpp)
