/* Slope's C API: the embedded C++ API (slope/slope.hpp) behind opaque handles, for C
 * and for other languages' foreign-function interfaces.
 *
 *   slope_session_options options;
 *   slope_session_options_init(&options);
 *   slope_session* session = NULL;
 *   slope_session_create(&options, &session);
 *   slope_module* module = NULL;
 *   slope_module_load(session, "blur.slang", &module);
 *   slope_artifact* artifact = NULL;
 *   if (slope_compile(module, SLOPE_TARGET_SPIRV, NULL, 0, &artifact) == SLOPE_OK)
 *     upload(slope_artifact_data(artifact), slope_artifact_size(artifact));
 *   slope_artifact_destroy(artifact);
 *   slope_module_destroy(module);
 *   slope_session_destroy(session);
 *
 * Every handle a create, load or compile function makes is the caller's, released with
 * its destroy function (NULL is accepted and ignored), in any order: a module keeps
 * what it needs of its session, an artifact owns its data. Strings and arrays a getter
 * returns live as long as the handle they came from. No function writes to stdout or
 * stderr, ends the process or lets a C++ exception out.
 *
 * Threads: as slope.hpp promises. Sessions, modules and artifacts are never changed
 * after they are made, so any function may be called on the same handles from several
 * threads at once; only a destroy must not race with other uses of its handle. */
#ifndef SLOPE_SLOPE_H
#define SLOPE_SLOPE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** How a call ended. */
typedef enum slope_status {
  SLOPE_OK = 0,               /**< done, no errors */
  SLOPE_ERROR = 1,            /**< the source has errors: see the diagnostics */
  SLOPE_INTERNAL_ERROR = 2,   /**< a bug of the compiler (or no memory): see internal_error */
  SLOPE_INVALID_ARGUMENT = 3  /**< a NULL handle or output pointer, an unknown target */
} slope_status;

typedef enum slope_target {
  SLOPE_TARGET_SPIRV = 0,      /**< SPIR-V words (host byte order) */
  SLOPE_TARGET_SPIRV_ASM = 1,  /**< SPIR-V disassembly text */
  SLOPE_TARGET_GLSL = 2,       /**< GLSL 450 text */
  SLOPE_TARGET_CUDA = 3,       /**< CUDA C++ text */
  SLOPE_TARGET_PTX = 4,        /**< PTX text (LLVM plugin) */
  SLOPE_TARGET_HOST = 5,       /**< LLVM bitcode for the CPU runtime (LLVM plugin) */
  SLOPE_TARGET_OBJECT = 6,     /**< ELF object (LLVM plugin) */
  SLOPE_TARGET_LLVM_IR = 7     /**< LLVM IR text (LLVM plugin) */
} slope_target;

typedef enum slope_severity {
  SLOPE_SEVERITY_ERROR = 0,
  SLOPE_SEVERITY_WARNING = 1,
  SLOPE_SEVERITY_NOTE = 2
} slope_severity;

typedef struct slope_session slope_session;
typedef struct slope_module slope_module;
typedef struct slope_artifact slope_artifact;

/** A session's options; slope_session_options_init sets the defaults. The arrays are
 * copied by slope_session_create. */
typedef struct slope_session_options {
  const char* const* search_paths; /**< -I directories, in order */
  size_t search_path_count;
  const char* const* macros;       /**< "NAME" or "NAME=VALUE", as -D */
  size_t macro_count;
  uint32_t optimization_level;     /**< 0..3; default 1 */
  int column_major;                /**< matrices column by column in buffers; default 0 */
  int warnings_as_errors;          /**< default 0 */
  int verify_each_pass;            /**< verify the IR after every pass; default 0 */
} slope_session_options;

/** One diagnostic; its strings live as long as the handle it came from. */
typedef struct slope_diagnostic {
  slope_severity severity;
  const char* code;    /**< "E1001" */
  const char* file;    /**< "" when it has no place */
  uint32_t line;       /**< 1-based; 0 when it has no place */
  uint32_t column;     /**< 1-based */
  const char* message;
  size_t note_count;   /**< read them with slope_*_diagnostic_note */
} slope_diagnostic;

void slope_session_options_init(slope_session_options* options);

/** Makes a session; `options` may be NULL for the defaults. */
slope_status slope_session_create(const slope_session_options* options, slope_session** out);
void slope_session_destroy(slope_session* session);

/** Loads and checks a module. `*out` is set whenever the status is SLOPE_OK, SLOPE_ERROR
 * or SLOPE_INTERNAL_ERROR: the module holds the diagnostics saying why. */
slope_status slope_module_load(const slope_session* session, const char* path, slope_module** out);
/** The same for source text; `name` names it in diagnostics and anchors relative imports. */
slope_status slope_module_load_source(const slope_session* session, const char* name,
                                      const char* text, slope_module** out);
void slope_module_destroy(slope_module* module);

size_t slope_module_entry_point_count(const slope_module* module);
/** The name of entry point `index` (NULL past the end); its thread-group size goes to
 * `numthreads` when that is not NULL. */
const char* slope_module_entry_point(const slope_module* module, size_t index,
                                     uint32_t numthreads[3]);
size_t slope_module_diagnostic_count(const slope_module* module);
/** Fills `*out` with diagnostic `index`; SLOPE_INVALID_ARGUMENT past the end. */
slope_status slope_module_diagnostic(const slope_module* module, size_t index, slope_diagnostic* out);
slope_status slope_module_diagnostic_note(const slope_module* module, size_t index, size_t note,
                                          slope_diagnostic* out);
/** With SLOPE_INTERNAL_ERROR from the load: the report; "" otherwise. */
const char* slope_module_internal_error(const slope_module* module);

/** Compiles `module` for `target`: the `entry_count` entry points named in `entries`, or
 * every one when entry_count is 0. `*out` is set as by slope_module_load. */
slope_status slope_compile(const slope_module* module, slope_target target,
                           const char* const* entries, size_t entry_count, slope_artifact** out);
void slope_artifact_destroy(slope_artifact* artifact);

slope_status slope_artifact_status(const slope_artifact* artifact);
/** The output (empty unless SLOPE_OK): bytes, or text without a terminating NUL in
 * `size` (one follows it in memory all the same). */
const void* slope_artifact_data(const slope_artifact* artifact);
size_t slope_artifact_size(const slope_artifact* artifact);
/** The reflection as `slopec -reflection-json` writes it ("" unless SLOPE_OK). */
const char* slope_artifact_reflection_json(const slope_artifact* artifact);
size_t slope_artifact_diagnostic_count(const slope_artifact* artifact);
slope_status slope_artifact_diagnostic(const slope_artifact* artifact, size_t index,
                                       slope_diagnostic* out);
slope_status slope_artifact_diagnostic_note(const slope_artifact* artifact, size_t index,
                                            size_t note, slope_diagnostic* out);
/** Every file the compile read, the module's own first. */
size_t slope_artifact_dependency_count(const slope_artifact* artifact);
const char* slope_artifact_dependency(const slope_artifact* artifact, size_t index);
/** With SLOPE_INTERNAL_ERROR: the report; "" otherwise. */
const char* slope_artifact_internal_error(const slope_artifact* artifact);

/** Writes the diagnostics as slopec prints them into `buffer` (at most `size` bytes,
 * always NUL-terminated when size > 0) and returns the length the whole text needs,
 * without the NUL, as snprintf does. `buffer` may be NULL when size is 0. */
size_t slope_artifact_render_diagnostics(const slope_artifact* artifact, char* buffer, size_t size);
size_t slope_module_render_diagnostics(const slope_module* module, char* buffer, size_t size);

#ifdef __cplusplus
}
#endif

#endif /* SLOPE_SLOPE_H */
