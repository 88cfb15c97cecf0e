/* The live filters by kind (filter_list.h). */
#include "filter_list.h"

static filter *by_kind[MAX_KIND];

filter *filter_list_of(uint8_t kind) { return kind < MAX_KIND ? by_kind[kind] : NULL; }

filter **filter_list_head(uint8_t kind) { return &by_kind[kind]; }
