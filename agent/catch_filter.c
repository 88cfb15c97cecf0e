/* Catch filters (catch_filter.h): judged in the Exception callback, under the agent lock, on memory
 * made when the request was set. */
#include <stdlib.h>

#include "base.h"
#include "buf.h"
#include "catch_filter.h"
#include "class_names.h"

static void free_list(char **list, uint16_t n) {
    for (uint16_t i = 0; list != NULL && i < n; i++) free(list[i]);
    free(list);
}

void catch_filter_free(catch_filter *f) {
    if (f == NULL) return;
    free_list(f->in, f->nin);
    free_list(f->out, f->nout);
    free(f);
}

/* n patterns, each a u32-sized string; the count is kept as each one is read (freeing stops there). */
static int parse_list(inbuf *in, char ***list, uint16_t *count) {
    uint16_t n = buf_in_u16(in);
    if (in->bad || n > in->len) return LS_BAD_MESSAGE;
    *list = calloc(n ? n : 1, sizeof **list);
    if (*list == NULL) return JVMTI_ERROR_OUT_OF_MEMORY;
    for (uint16_t i = 0; i < n; i++) {
        char *s = buf_in_str(in);
        if (s == NULL) return LS_BAD_MESSAGE;
        (*list)[i] = s;
        *count = (uint16_t)(i + 1);
        if (s[0] == 0) return JVMTI_ERROR_ILLEGAL_ARGUMENT;  /* the daemon checked; a hostile peer may not */
    }
    return 0;
}

int catch_filter_parse(inbuf *in, catch_filter **out) {
    *out = NULL;
    catch_filter *f = calloc(1, sizeof *f);
    if (f == NULL) return JVMTI_ERROR_OUT_OF_MEMORY;
    int st = parse_list(in, &f->in, &f->nin);
    if (!st) st = parse_list(in, &f->out, &f->nout);
    if (st) {
        catch_filter_free(f);
        return st;
    }
    *out = f;
    return 0;
}

bool catch_filter_passes(catch_filter *f, JNIEnv *env, jmethodID catch_method) {
    if (catch_method == NULL) return true;
    size_t slot = ((uintptr_t)catch_method >> 3) & (CATCH_FILTER_VERDICTS - 1);
    if (f->judged[slot] == catch_method) return f->verdict[slot];
    jclass cls = NULL;
    if ((*base_g.jvmti)->GetMethodDeclaringClass(base_g.jvmti, catch_method, &cls) != JVMTI_ERROR_NONE) return true;
    char *name = class_names_dotted(cls);
    (*env)->DeleteLocalRef(env, cls);
    if (name == NULL) return true;
    bool pass = f->nin == 0;  /* no "caught in" pattern: caught anywhere */
    for (uint16_t i = 0; i < f->nin && !pass; i++) pass = class_names_match(f->in[i], name);
    for (uint16_t i = 0; i < f->nout && pass; i++) pass = !class_names_match(f->out[i], name);
    free(name);
    f->judged[slot] = catch_method;
    f->verdict[slot] = pass;
    return pass;
}
