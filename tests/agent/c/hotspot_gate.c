/* Run by tests/agent/test_hotspot_gate.py: agent/hotspot_gate.h's decision for JVMTI versions and
 * faked feature versions named on the command line, one line each, so that the test compares it
 * with protocol/agent_code.py's IN_PLACE_JDKS (the list the generated header carries). */
#include <stdio.h>
#include <stdlib.h>

#include "hotspot_gate.h"

int main(int argc, char **argv) {
    /* Pairs: a JVMTI version number (as GetVersionNumber gives it), the faked feature (0: none). */
    for (int i = 1; i + 1 < argc; i += 2) {
        jint version = (jint)strtol(argv[i], NULL, 0);
        int faked = (int)strtol(argv[i + 1], NULL, 0);
        int untested = 0;
        bool allows = hotspot_gate_allows(version, faked, &untested);
        printf("%s %d %s %d\n", argv[i], hotspot_gate_feature(version), allows ? "allow" : "refuse",
               allows ? 0 : untested);
    }
    return 0;
}
