# slope_add_library(NAME SOURCES src... [DEPS lib...])
# One static library per pipeline stage. Dependencies point one way only
# (base <- diag <- source <- preprocess <- parse <- sema <- lower <- ir/passes <- targets
# <- driver): a stage that includes a later stage's header fails to link.
function(slope_add_library name)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPS" ${ARGN})
  add_library(${name} STATIC ${ARG_SOURCES})
  # Headers are included from the repository root ("compiler/driver/compile.h"); an
  # installed tree has the public ones under include/slope/ in the same layout.
  target_include_directories(${name} PUBLIC
    $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}> $<BUILD_INTERFACE:${PROJECT_BINARY_DIR}>
    $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}/slope>)
  if(ARG_DEPS)
    target_link_libraries(${name} PUBLIC ${ARG_DEPS})
  endif()
endfunction()
