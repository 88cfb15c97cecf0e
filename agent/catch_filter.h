/* Exception requests filtered by where the exception is caught (jdwpd's extension, ObjKind.CATCH in
 * protocol/agent_code.py): most throws of a program are caught by the code that threw them, and a
 * client that wants only those a test framework records never hears of them. */
#ifndef JDWPD_CATCH_FILTER_H
#define JDWPD_CATCH_FILTER_H

#include "base.h"
#include "buf.h"

typedef struct catch_filter {
    uint16_t nin, nout;
    char **in;   /* the catching method's class must match one of these (none: any class) ... */
    char **out;  /* ... and none of these */
} catch_filter;

/* The body after the kind byte (executor thread): 0 or a status; *out NULL on failure. */
int catch_filter_parse(inbuf *in, catch_filter **out);
void catch_filter_free(catch_filter *f);

/* Whether an exception whose handler is in catch_method (NULL: uncaught) passes.  A class JVMTI
 * cannot name passes too: a failure the client judges is better than one it never sees. */
bool catch_filter_passes(const catch_filter *f, JNIEnv *env, jmethodID catch_method);

#endif
