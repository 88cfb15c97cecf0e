/* JVMTI event notification modes, counted: a VM-wide event is enabled by its first user and
 * disabled by its last (filters, the suspend-all's thread starts, virtual-thread tracking). */
#ifndef JDWPD_EVMODE_H
#define JDWPD_EVMODE_H

#include "base.h"

/* thread NULL: VM-wide and counted (agent lock taken inside); else that thread's mode, uncounted. */
void evmode_enable(jvmtiEvent ev, jthread thread, bool on);
int evmode_enabled_count(void);  /* JVMTI event kinds enabled globally now */

#endif
