/* onthrow=/onuncaught=: a dormant agent woken by an exception. */
#ifndef JDWPD_WAKE_H
#define JDWPD_WAKE_H

#include "base.h"

/* OnLoad, when dormant: how the throwing thread starts the agent (agent.c's start of the link and
 * its hooks; 0 or an error). */
void wake_arm(int (*start)(JNIEnv *env));
/* The Exception callback of a dormant agent. */
void wake_on_exception(JNIEnv *env, jthread thread, jmethodID method, jlocation loc, jobject exception,
                       jmethodID catch_method, jlocation catch_loc);

#endif
