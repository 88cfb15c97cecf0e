/* Class unloads, watched in a second JVMTI environment (see unload.c). */
#ifndef JDWPD_UNLOAD_H
#define JDWPD_UNLOAD_H

#include "base.h"

void unload_init(void);  /* OnLoad/OnAttach: the environment that watches the classes whose ids were sent */
void unload_watch_class(jclass cls, uint64_t id);  /* objects_id: a class object's id was handed out */
int unload_tracking_start(JNIEnv *env);
bool unload_tracking_active(void);
bool unload_tracking_on(void);     /* a CLASS_UNLOAD request started tracking (it stays on) */

/* A class object freed: its id (0: none handed out) and signature; the queue's node. */
typedef struct unload_rec {
    struct unload_rec *next;
    uint64_t id;
    char signature[];
} unload_rec;
/* The records queued since the last call, the caller's to free (unload_report.c). */
unload_rec *unload_take_pending(void);

#endif
