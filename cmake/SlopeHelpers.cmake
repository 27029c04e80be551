# slope_add_library(NAME SOURCES src... [DEPS lib...])
# One static library per pipeline stage. Dependencies point one way only
# (base <- diag <- source <- preprocess <- parse <- sema <- lower <- ir/passes <- targets
# <- driver): a stage that includes a later stage's header fails to link.
function(slope_add_library name)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPS" ${ARGN})
  add_library(${name} STATIC ${ARG_SOURCES})
  target_include_directories(${name} PUBLIC ${PROJECT_SOURCE_DIR} ${PROJECT_BINARY_DIR})
  if(ARG_DEPS)
    target_link_libraries(${name} PUBLIC ${ARG_DEPS})
  endif()
endfunction()
