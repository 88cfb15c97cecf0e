/* JSR-45 source maps for line steps.  The reference agent steps a class with a SourceDebugExtension by
 * the lines of its default stratum (the debugger's SetDefaultStratum when the class has that stratum,
 * else the SMAP's own default; none when that resolves to Java), and so does ours; the rules below are
 * the reference's as observed (docs/link.md, Steps), written here from the JSR-45 grammar.
 *
 * Parsing is all or nothing: a syntax error anywhere (a missing '*', ':' or line end, the text ending
 * before "*E") leaves the class stepped by Java lines.  Sections other than S, F, L and E are skipped
 * line by line up to the next line that starts with '*'.  The Java stratum always exists first (every
 * Java line maps to itself); a stratum section with no file or line entries before the next section
 * header is dropped, so a name given twice resolves to its first non-empty section. */
#define _POSIX_C_SOURCE 200809L  /* strdup */
#include <stdlib.h>
#include <string.h>

#include "base.h"
#include "buf.h"
#include "smap.h"

typedef struct {
    int32_t jfirst, jlast, jstep;  /* Java lines jfirst..jlast, jstep of them per stratum line */
    int32_t first;                 /* the stratum line of jfirst */
    int32_t file;                  /* the stratum's file id */
} smap_range;

typedef struct {
    const char *name;  /* into smap.text */
    int ranges_from;   /* this stratum's ranges: [ranges_from, next stratum's ranges_from) */
    int files_from;
} smap_stratum;

struct smap {
    char *text;  /* a copy; names are NUL-terminated in place */
    const char *default_name;
    int nstrata, nranges, nfiles;  /* the last stratum is an end marker */
    smap_stratum *strata;
    smap_range *ranges;
    const char **files;  /* source names of every stratum, Java's (the SMAP's second line) first */
};

typedef struct {
    char *p;
    bool bad;
    smap *m;
    int cap_strata, cap_ranges, cap_files;
    int32_t file;  /* the line section's current file id: 0 at each stratum's start */
} parser;

static char peek(parser *ps) {
    if (*ps->p == 0) ps->bad = true;
    return *ps->p;
}

static char next(parser *ps) {
    char c = peek(ps);
    if (c) ps->p++;
    return c;
}

/* Blanks are skipped at the start of every line; the text may not end there. */
static void blanks(parser *ps) {
    while (!ps->bad && (peek(ps) == ' ' || peek(ps) == '\t')) ps->p++;
}

static void skip_line(parser *ps) {
    char c;
    do c = next(ps);
    while (!ps->bad && c != '\n' && c != '\r');
    if (!ps->bad && c == '\r' && peek(ps) == '\n') ps->p++;
    blanks(ps);
}

static const char *read_line(parser *ps) {
    blanks(ps);
    char *start = ps->p;
    char c = 0;
    while (!ps->bad && (c = *ps->p) != '\n' && c != '\r') {
        if (c == 0) ps->bad = true;
        else ps->p++;
    }
    if (ps->bad) return "";
    *ps->p++ = 0;
    if (c == '\r' && *ps->p == '\n') ps->p++;
    blanks(ps);
    return start;
}

static int32_t number(parser *ps) {
    int64_t v = 0;
    blanks(ps);
    while (!ps->bad && peek(ps) >= '0' && peek(ps) <= '9') {
        if (v < INT32_MAX) v = v * 10 + (next(ps) - '0');
        else ps->p++;
    }
    blanks(ps);
    return v > INT32_MAX ? INT32_MAX : (int32_t)v;
}

static bool grow(void **items, int *cap, int want, size_t size) {
    if (want <= *cap) return true;
    int ncap = *cap ? *cap * 2 : 8;
    void *n = realloc(*items, (size_t)ncap * size);
    if (n == NULL) return false;
    *items = n;
    *cap = ncap;
    return true;
}

static void add_stratum(parser *ps, const char *name) {
    smap *m = ps->m;
    if (m->nstrata > 0 && m->strata[m->nstrata - 1].files_from == m->nfiles &&
        m->strata[m->nstrata - 1].ranges_from == m->nranges)
        m->nstrata--;  /* the one before holds nothing: replaced */
    if (!grow((void **)&m->strata, &ps->cap_strata, m->nstrata + 1, sizeof *m->strata)) {
        ps->bad = true;
        return;
    }
    m->strata[m->nstrata++] = (smap_stratum){name, m->nranges, m->nfiles};
    ps->file = 0;
}

static void add_range(parser *ps, int32_t jfirst, int32_t count, int32_t jstep, int32_t first, int32_t file) {
    smap *m = ps->m;
    if (!grow((void **)&m->ranges, &ps->cap_ranges, m->nranges + 1, sizeof *m->ranges)) {
        ps->bad = true;
        return;
    }
    int64_t last = (int64_t)jfirst + (int64_t)count * jstep - 1;
    m->ranges[m->nranges++] = (smap_range){jfirst, last > INT32_MAX ? INT32_MAX : (int32_t)last, jstep, first, file};
}

static void add_file(parser *ps, const char *name) {
    smap *m = ps->m;
    if (!grow((void **)&m->files, &ps->cap_files, m->nfiles + 1, sizeof *m->files)) {
        ps->bad = true;
        return;
    }
    m->files[m->nfiles++] = name;
}

/* [+] id name [CR path] */
static void file_line(parser *ps) {
    bool with_path = peek(ps) == '+';
    if (with_path) ps->p++;
    number(ps);
    const char *name = read_line(ps);
    if (with_path) read_line(ps);
    add_file(ps, name);
}

/* first [# file] [, count] : jfirst [, jstep] */
static void line_line(parser *ps) {
    int32_t first = number(ps), count = 1, jstep = 1;
    if (peek(ps) == '#') {
        ps->p++;
        ps->file = number(ps);
    }
    if (peek(ps) == ',') {
        ps->p++;
        count = number(ps);
    }
    if (next(ps) != ':') ps->bad = true;
    int32_t jfirst = number(ps);
    if (peek(ps) == ',') {
        ps->p++;
        jstep = number(ps);
    }
    skip_line(ps);
    if (!ps->bad) add_range(ps, jfirst, count, jstep, first, ps->file);
}

static bool parse(parser *ps) {
    if (strlen(ps->p) <= 4 || strncmp(ps->p, "SMAP", 4) != 0) return false;
    ps->p += 4;
    skip_line(ps);
    const char *java_file = read_line(ps);
    ps->m->default_name = read_line(ps);
    add_stratum(ps, "Java");
    add_file(ps, java_file);
    add_range(ps, 1, 65536, 1, 1, 1);
    add_stratum(ps, "Aux");  /* entries before any *S */
    while (!ps->bad) {
        if (next(ps) != '*') return false;
        char section = next(ps);
        if (ps->bad) return false;
        if (section == 'E') {
            add_stratum(ps, NULL);
            return !ps->bad;
        }
        if (section == 'S') {
            add_stratum(ps, read_line(ps));
            continue;
        }
        skip_line(ps);
        while (!ps->bad && peek(ps) != '*') {
            if (section == 'F') file_line(ps);
            else if (section == 'L') line_line(ps);
            else skip_line(ps);
        }
    }
    return false;
}

smap *smap_parse(const char *text) {
    if (text == NULL) return NULL;
    smap *m = calloc(1, sizeof *m);
    if (m == NULL || (m->text = strdup(text)) == NULL) {
        free(m);
        return NULL;
    }
    parser ps = {.p = m->text, .m = m};
    if (!parse(&ps)) {
        smap_free(m);
        return NULL;
    }
    return m;
}

void smap_free(smap *m) {
    if (m == NULL) return;
    free(m->text);
    free(m->strata);
    free(m->ranges);
    free(m->files);
    free(m);
}

static int stratum_index(const smap *m, const char *name) {
    for (int i = 0; name != NULL && i < m->nstrata - 1; i++)
        if (strcmp(m->strata[i].name, name) == 0) return i;
    return -1;
}

jint smap_convert(const smap *m, const char *stratum, jint n, jvmtiLineNumberEntry *lines) {
    int s = stratum_index(m, stratum);
    /* A stratum the class lacks means its own default.  (The reference recurses without end when that
     * default is missing too; here the class keeps its Java lines.) */
    if (s < 0) s = stratum_index(m, m->default_name);
    if (s <= 0) return n;  /* index 0 is Java */
    jint kept = 0;
    uint32_t last = 0;
    for (jint i = 0; i < n; i++) {
        int32_t line = lines[i].line_number;
        for (int r = m->strata[s].ranges_from; r < m->strata[s + 1].ranges_from; r++) {
            const smap_range *g = &m->ranges[r];
            if (line < g->jfirst || line > g->jlast || g->jstep <= 0) continue;
            uint32_t mapped = (uint32_t)g->first + (uint32_t)((line - g->jfirst) / g->jstep);
            mapped += (uint32_t)g->file << 16;
            if (mapped != last) {
                last = mapped;
                lines[kept].start_location = lines[i].start_location;
                lines[kept].line_number = (jint)mapped;
                kept++;
            }
            break;
        }
    }
    return kept;
}

bool smap_source_name_match(jclass cls, const char *pattern, bool (*match)(const char *pattern, const char *name)) {
    char *text = NULL;
    if (cls == NULL || pattern == NULL || !base_g.caps.can_get_source_debug_extension ||
        (*base_g.jvmti)->GetSourceDebugExtension(base_g.jvmti, cls, &text) != JVMTI_ERROR_NONE)
        return false;
    smap *m = smap_parse(text);
    base_jvmti_free(text);
    bool found = false;
    for (int i = 0; m != NULL && i < m->nfiles && !found; i++) found = match(pattern, m->files[i]);
    smap_free(m);
    return found;
}

/* ---- the step machine's cache and the default stratum (under the agent lock) ------------------ */

static char *default_stratum;  /* NULL: each class's own */
static volatile uint32_t generation;  /* written under the lock; read without (the step's hot path) */

/* Method -> its class's SMAP (NULL: none), direct-mapped: steps return to the same few methods.  The class
 * is held weakly and compared on every hit: a method id may outlive its class (newer HotSpots free and
 * reuse the ids of unloaded classes). */
static struct {
    jmethodID m;
    jweak cls;
    smap *map;
} cache[256];

static void forget_slot(JNIEnv *env, size_t slot) {
    smap_free(cache[slot].map);
    if (cache[slot].cls != NULL) (*env)->DeleteWeakGlobalRef(env, cache[slot].cls);
    cache[slot].m = NULL;
    cache[slot].cls = NULL;
    cache[slot].map = NULL;
}

static smap *map_of(JNIEnv *env, jmethodID m) {
    jclass cls = NULL;
    if ((*base_g.jvmti)->GetMethodDeclaringClass(base_g.jvmti, m, &cls) != JVMTI_ERROR_NONE) return NULL;
    size_t slot = ((uintptr_t)m >> 3) % ARRAY_LEN(cache);
    if (cache[slot].m != m || !(*env)->IsSameObject(env, cache[slot].cls, cls)) {
        forget_slot(env, slot);
        char *text = NULL;
        cache[slot].m = m;
        cache[slot].cls = (*env)->NewWeakGlobalRef(env, cls);
        if ((*base_g.jvmti)->GetSourceDebugExtension(base_g.jvmti, cls, &text) == JVMTI_ERROR_NONE) {
            cache[slot].map = smap_parse(text);
            base_jvmti_free(text);
        }
    }
    (*env)->DeleteLocalRef(env, cls);
    return cache[slot].map;
}

jint smap_step_lines(jmethodID m, jint n, jvmtiLineNumberEntry *lines) {
    JNIEnv *env = base_jni_env();
    if (n <= 0 || !base_g.caps.can_get_source_debug_extension || env == NULL) return n;
    base_lock_enter();
    smap *map = map_of(env, m);
    if (map != NULL) n = smap_convert(map, default_stratum, n, lines);
    base_lock_exit();
    return n;
}

uint32_t smap_stratum_generation(void) {
    return generation;
}

void smap_forget_classes(void) {
    JNIEnv *env = base_jni_env();
    if (env == NULL) return;
    base_lock_enter();
    for (size_t i = 0; i < ARRAY_LEN(cache); i++) forget_slot(env, i);
    generation++;
    base_lock_exit();
}

int smap_set_default_stratum(JNIEnv *env, inbuf *in, outbuf *out) {
    (void)env;
    (void)out;
    char *stratum = buf_in_str(in);
    if (!buf_in_done(in)) {
        free(stratum);
        return LS_BAD_MESSAGE;
    }
    if (stratum != NULL && stratum[0] == 0) {
        free(stratum);
        stratum = NULL;
    }
    base_lock_enter();
    free(default_stratum);
    default_stratum = stratum;
    generation++;
    base_lock_exit();
    return 0;
}
