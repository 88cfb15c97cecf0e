/* The live filters, one list per JDWP event kind (newest first), and the context an event is matched
 * in: the data the filters' matching (filters.c) and the extension's judging (ext.c) share.  The
 * agent lock guards the lists. */
#ifndef JDWPD_FILTER_LIST_H
#define JDWPD_FILTER_LIST_H

#include "base.h"
#include "threads.h"

#define MAX_KIND 128  /* JDWP event kinds and the extension's, all below */

typedef struct modifier {
    uint8_t kind;
    int32_t count;        /* MK_COUNT: occurrences left */
    jobject ref;          /* global ref: thread, class, exception class, field class, instance */
    char *pattern;        /* class match/exclude, source name */
    jmethodID method;     /* location only */
    jlocation loc;
    bool caught, uncaught;
    jfieldID field;
    int size, depth;      /* step */
    struct ext_obj *ext;  /* Conditional: the extension's condition, capture or budget (ext.h) */
} modifier;

typedef struct filter {
    struct filter *next;
    int32_t request_id;
    uint8_t event_kind;
    uint8_t suspend_policy;
    bool expired;         /* a Count reached zero: the request matches nothing more */
    uint64_t seq;         /* installation order: newest first where kinds share one JVMTI event */
    int nmods;
    modifier *mods;
    thread_rec *step_thread;
    struct ext_req *ext;  /* conditions and budgets of jdwpd's extension (ext.c), else NULL */
} filter;

/* What one JVMTI callback knows; lazily filled parts are computed on first use. */
typedef struct ev_ctx {
    JNIEnv *env;
    jthread thread;
    jclass cls;           /* class of the location, or the prepared class */
    jmethodID method;
    jlocation loc;
    jobject exception;
    bool caught;
    jmethodID catch_method;  /* exception events: where it is caught (NULL: uncaught) */
    jfieldID field;
    jclass field_class;
    jobject object;       /* field events: the object; monitor events: the monitor */
    bool object_known;
    jobject self;         /* the event frame's `this` (lazy; InstanceOnly) */
    bool self_known;
    char *class_name;     /* dotted, lazy */
    char *source_name;    /* lazy */
    bool source_known;
    struct live_view *live;  /* the thread's top frame walked before matching (live.h), or NULL */
    struct slots_view *slots; /* the breakpoint frame's slots read in place (slots.h), or NULL */
} ev_ctx;

filter *filter_list_of(uint8_t kind);
filter **filter_list_head(uint8_t kind);  /* kind < MAX_KIND: the list to insert into or unlink from */

#endif
