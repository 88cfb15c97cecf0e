/* Exception requests filtered by where the exception is caught (jdwpd's extension, ObjKind.CATCH in
 * protocol/agent_code.py): most throws of a program are caught by the code that threw them, and a
 * client that wants only those a test framework records never hears of them. */
#ifndef JDWPD_CATCH_FILTER_H
#define JDWPD_CATCH_FILTER_H

#include "base.h"
#include "buf.h"

#define CATCH_FILTER_VERDICTS 512  /* a power of two */

typedef struct catch_filter {
    uint16_t nin, nout;
    char **in;   /* the catching method's class must match one of these (none: any class) ... */
    char **out;  /* ... and none of these */
    /* Verdicts by catching method, direct-mapped: a program throws again and again to the same
     * handlers, and a verdict read back costs a load where the class's name costs two JVMTI calls
     * and an allocation.  HotSpot never reuses a jmethodID (not even after its class unloads). */
    jmethodID judged[CATCH_FILTER_VERDICTS];
    bool verdict[CATCH_FILTER_VERDICTS];
} catch_filter;

/* The body after the kind byte (executor thread): 0 or a status; *out NULL on failure. */
int catch_filter_parse(inbuf *in, catch_filter **out);
void catch_filter_free(catch_filter *f);

/* Whether an exception whose handler is in catch_method (NULL: uncaught) passes.  A class JVMTI
 * cannot name passes too (and is asked again next time): a failure the client judges is better than
 * one it never sees.  Under the agent lock (the verdicts are remembered). */
bool catch_filter_passes(catch_filter *f, JNIEnv *env, jmethodID catch_method);

#endif
