/* The C API (include/slope/slope.h) from a C11 program: a session, a module, SPIR-V
 * output and reflection, structured and rendered diagnostics, an internal error as a
 * status, and the argument checks. Exits 0 when every check holds. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "slope/slope.h"

static int failures = 0;

#define CHECK(cond)                                                  \
  do {                                                               \
    if (!(cond)) {                                                   \
      fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
      ++failures;                                                    \
    }                                                                \
  } while (0)

static const char* const kKernel =
    "RWStructuredBuffer<int> out_data;\n"
    "[shader(\"compute\")] [numthreads(16, 2, 1)]\n"
    "void fill(uint3 tid : SV_DispatchThreadID) {\n"
    "    out_data[tid.x] = VALUE;\n"
    "}\n";

static void TestCompile(void) {
  const char* macros[] = {"VALUE=7"};
  slope_session_options options;
  slope_session_options_init(&options);
  CHECK(options.optimization_level == 1);
  options.macros = macros;
  options.macro_count = 1;
  slope_session* session = NULL;
  CHECK(slope_session_create(&options, &session) == SLOPE_OK);
  CHECK(session != NULL);

  slope_module* module = NULL;
  CHECK(slope_module_load_source(session, "fill.slang", kKernel, &module) == SLOPE_OK);
  /* The module keeps what it needs: the session may go first. */
  slope_session_destroy(session);
  CHECK(slope_module_entry_point_count(module) == 1);
  uint32_t numthreads[3] = {0, 0, 0};
  const char* name = slope_module_entry_point(module, 0, numthreads);
  CHECK(name != NULL && strcmp(name, "fill") == 0);
  CHECK(numthreads[0] == 16 && numthreads[1] == 2 && numthreads[2] == 1);
  CHECK(slope_module_entry_point(module, 1, NULL) == NULL);
  CHECK(slope_module_diagnostic_count(module) == 0);

  slope_artifact* artifact = NULL;
  const char* entries[] = {"fill"};
  CHECK(slope_compile(module, SLOPE_TARGET_SPIRV, entries, 1, &artifact) == SLOPE_OK);
  CHECK(slope_artifact_status(artifact) == SLOPE_OK);
  size_t size = slope_artifact_size(artifact);
  const uint32_t* words = (const uint32_t*)slope_artifact_data(artifact);
  CHECK(size > 20 && size % 4 == 0);
  CHECK(words != NULL && words[0] == 0x07230203u);
  const char* json = slope_artifact_reflection_json(artifact);
  CHECK(strstr(json, "\"name\": \"out_data\"") != NULL);
  CHECK(strstr(json, "\"numthreads\"") != NULL);
  CHECK(slope_artifact_dependency_count(artifact) == 1);
  CHECK(strcmp(slope_artifact_dependency(artifact, 0), "fill.slang") == 0);
  CHECK(strcmp(slope_artifact_internal_error(artifact), "") == 0);
  slope_artifact_destroy(artifact);

  /* A text target. */
  CHECK(slope_compile(module, SLOPE_TARGET_GLSL, NULL, 0, &artifact) == SLOPE_OK);
  const char* text = (const char*)slope_artifact_data(artifact);
  CHECK(strncmp(text, "#version 450", 12) == 0);
  CHECK(strlen(text) == slope_artifact_size(artifact));
  slope_artifact_destroy(artifact);
  slope_module_destroy(module);
}

static void TestDiagnostics(void) {
  slope_session* session = NULL;
  CHECK(slope_session_create(NULL, &session) == SLOPE_OK);
  slope_module* module = NULL;
  /* VALUE is not defined in this session. */
  CHECK(slope_module_load_source(session, "fill.slang", kKernel, &module) == SLOPE_ERROR);
  CHECK(module != NULL);
  slope_artifact* artifact = NULL;
  CHECK(slope_compile(module, SLOPE_TARGET_SPIRV, NULL, 0, &artifact) == SLOPE_ERROR);
  CHECK(slope_artifact_size(artifact) == 0);
  CHECK(slope_artifact_diagnostic_count(artifact) == 1);
  slope_diagnostic d;
  CHECK(slope_artifact_diagnostic(artifact, 0, &d) == SLOPE_OK);
  CHECK(d.severity == SLOPE_SEVERITY_ERROR);
  CHECK(strcmp(d.code, "E3001") == 0);
  CHECK(strcmp(d.file, "fill.slang") == 0);
  CHECK(d.line == 4 && d.column == 23);
  CHECK(strcmp(d.message, "use of undeclared identifier 'VALUE'") == 0);
  CHECK(d.note_count == 0);
  CHECK(slope_artifact_diagnostic(artifact, 1, &d) == SLOPE_INVALID_ARGUMENT);
  CHECK(slope_artifact_diagnostic_note(artifact, 0, 0, &d) == SLOPE_INVALID_ARGUMENT);

  const char* expected =
      "fill.slang:4:23: error E3001: use of undeclared identifier 'VALUE'\n"
      "    out_data[tid.x] = VALUE;\n"
      "                      ^~~~~\n";
  size_t needed = slope_artifact_render_diagnostics(artifact, NULL, 0);
  CHECK(needed == strlen(expected));
  char* rendered = (char*)malloc(needed + 1);
  CHECK(slope_artifact_render_diagnostics(artifact, rendered, needed + 1) == needed);
  CHECK(strcmp(rendered, expected) == 0);
  char small[8];
  CHECK(slope_artifact_render_diagnostics(artifact, small, sizeof small) == needed);
  CHECK(strcmp(small, "fill.sl") == 0);
  free(rendered);
  CHECK(slope_module_diagnostic_count(module) == 1);
  CHECK(slope_module_render_diagnostics(module, NULL, 0) == needed);
  slope_artifact_destroy(artifact);
  slope_module_destroy(module);

  /* A file that is not there. */
  CHECK(slope_module_load(session, "/nonexistent/x.slang", &module) == SLOPE_ERROR);
  CHECK(slope_module_diagnostic(module, 0, &d) == SLOPE_OK);
  CHECK(strcmp(d.code, "E0002") == 0);
  slope_module_destroy(module);
  slope_session_destroy(session);
}

static void TestInternalErrorAndArguments(void) {
  slope_session* session = NULL;
  CHECK(slope_session_create(NULL, &session) == SLOPE_OK);
  slope_module* module = NULL;
  CHECK(slope_module_load_source(session, "ice.slang",
                                 "[numthreads(1,1,1)] void main() {}\n#pragma slope __debug ice\n",
                                 &module) == SLOPE_INTERNAL_ERROR);
  CHECK(strstr(slope_module_internal_error(module), "internal compiler error") != NULL);
  slope_artifact* artifact = NULL;
  CHECK(slope_compile(module, SLOPE_TARGET_SPIRV, NULL, 0, &artifact) == SLOPE_INTERNAL_ERROR);
  CHECK(strncmp(slope_artifact_internal_error(artifact), "ice.slang: internal compiler error: ",
                36) == 0);
  slope_artifact_destroy(artifact);
  CHECK(slope_compile(module, (slope_target)42, NULL, 0, &artifact) == SLOPE_INVALID_ARGUMENT);
  CHECK(artifact == NULL);
  CHECK(slope_compile(module, SLOPE_TARGET_SPIRV, NULL, 1, &artifact) == SLOPE_INVALID_ARGUMENT);
  CHECK(slope_compile(NULL, SLOPE_TARGET_SPIRV, NULL, 0, &artifact) == SLOPE_INVALID_ARGUMENT);
  slope_module* none = module;
  CHECK(slope_module_load(NULL, "x.slang", &none) == SLOPE_INVALID_ARGUMENT);
  CHECK(none == NULL);
  CHECK(slope_session_create(NULL, NULL) == SLOPE_INVALID_ARGUMENT);
  CHECK(slope_artifact_status(NULL) == SLOPE_INVALID_ARGUMENT);
  slope_module_destroy(module);
  slope_module_destroy(NULL);
  slope_artifact_destroy(NULL);
  slope_session_destroy(session);
}

int main(void) {
  TestCompile();
  TestDiagnostics();
  TestInternalErrorAndArguments();
  if (failures != 0) {
    fprintf(stderr, "%d checks failed\n", failures);
    return 1;
  }
  printf("c api: all checks passed\n");
  return 0;
}
