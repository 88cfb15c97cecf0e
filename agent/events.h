/* The JVMTI event callbacks of application threads (events.c), and the VM's start and death events. */
#ifndef JDWPD_EVENTS_H
#define JDWPD_EVENTS_H

#include "threads.h"

void events_init(jvmtiEventCallbacks *cb);
void events_vm_start(JNIEnv *env, jthread thread);
void events_vm_death(JNIEnv *env);

#endif
