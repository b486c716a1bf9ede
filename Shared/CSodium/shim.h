#ifndef SOUS_CSODIUM_SHIM_H
#define SOUS_CSODIUM_SHIM_H
#include <sodium.h>
#endif
