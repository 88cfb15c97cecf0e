/* Class names as JDWP writes them, and its class patterns (class_names.h). */
#include <stdlib.h>
#include <string.h>

#include "base.h"
#include "class_names.h"

bool class_names_match(const char *pattern, const char *name) {
    if (pattern == NULL || name == NULL) return false;
    size_t pl = strlen(pattern), nl = strlen(name);
    if (pl > 0 && pattern[0] == '*') return nl >= pl - 1 && strcmp(name + nl - (pl - 1), pattern + 1) == 0;
    if (pl > 0 && pattern[pl - 1] == '*') return strncmp(name, pattern, pl - 1) == 0;
    return strcmp(pattern, name) == 0;
}

char *class_names_dotted(jclass cls) {
    char *sig = NULL;
    if (cls == NULL || (*base_g.jvmti)->GetClassSignature(base_g.jvmti, cls, &sig, NULL) != JVMTI_ERROR_NONE) return NULL;
    /* Lpkg/Name; -> pkg.Name */
    size_t n = strlen(sig);
    char *name = malloc(n + 1);
    if (name) {
        const char *s = sig;
        size_t len = n;
        if (sig[0] == 'L' && n >= 2) {
            s = sig + 1;
            len = n - 2;
        }
        for (size_t i = 0; i < len; i++) name[i] = s[i] == '/' ? '.' : s[i];
        name[len] = 0;
    }
    base_jvmti_free(sig);
    return name;
}
