#ifndef SOUS_CZEROMQ_SHIM_H
#define SOUS_CZEROMQ_SHIM_H
#include <zmq.h>
#endif
