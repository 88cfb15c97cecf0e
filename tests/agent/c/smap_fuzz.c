/* Built with agent/smap.c under ASan/UBSan by tests/agent/test_smap_fuzz.py: SourceDebugExtension texts
 * come from the debuggee's class files, so the agent must parse any bytes without a fault.  Reads texts
 * separated by NUL from stdin; for each prints whether it parsed and, per stratum name, the converted
 * table of a fixed Java line table (count, then line@location).  The JVM-facing parts of smap.c (the
 * step cache, SourceNameMatch, the link executor) are not reached: the symbols they name are only
 * defined here so that the file links. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "smap.h"

agent_globals base_g;
void base_lock_enter(void) {}
void base_lock_exit(void) {}
void base_jvmti_free(void *p) { (void)p; }
JNIEnv *base_jni_env(void) { return NULL; }
char *buf_in_str(inbuf *b) { (void)b; return NULL; }
bool buf_in_done(inbuf *b) { (void)b; return false; }

static void run(const char *text) {
    static const char *strata[] = {NULL, "Foo", "Bar", "Java", "Aux", "Kotlin", "KotlinDebug", "x", ""};
    smap *m = smap_parse(text);
    printf("%s", m ? "SMAP" : "none");
    for (size_t s = 0; m != NULL && s < sizeof strata / sizeof strata[0]; s++) {
        jvmtiLineNumberEntry lines[160];
        for (jint i = 0; i < 160; i++) {
            lines[i].start_location = (jlocation)i * 3;
            lines[i].line_number = (i * 7) % 90 - 5;  /* out of order, repeated, zero and negative too */
        }
        jint n = smap_convert(m, strata[s], 160, lines);
        printf(" |%s:%d", strata[s] ? strata[s] : "-", (int)n);
        for (jint i = 0; i < n && i < 12; i++) printf(" %d@%d", (int)lines[i].line_number, (int)lines[i].start_location);
    }
    printf("\n");
    smap_free(m);
}

int main(void) {
    size_t cap = 1 << 16, len = 0;
    char *all = malloc(cap);
    int c;
    while (all != NULL && (c = getchar()) != EOF) {
        if (len + 1 >= cap) {
            char *more = realloc(all, cap *= 2);
            if (more == NULL) break;
            all = more;
        }
        all[len++] = (char)c;
    }
    if (all == NULL) return 1;
    all[len] = 0;
    for (size_t at = 0; at <= len;) {
        run(all + at);
        at += strlen(all + at) + 1;
    }
    free(all);
    printf("OK\n");
    return 0;
}
