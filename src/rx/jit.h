/* src/rx/jit.h — contract between the VM (vm.c) and the JIT backends
 * (jit_x86_64.c, jit_aarch64.c, jit_none.c).  The VM state and program
 * types are the VM side's (see the headers vm.c includes); a JIT run has
 * exactly the semantics of the interpreter's run of one program.
 * Owned by the JIT work; jit_none.c is the fallback where no JIT exists. */
#ifndef RX_JIT_H
#define RX_JIT_H
#include "rx/internal.h"

struct rx_program;   /* defined by the VM side */
struct rx_vm_state;  /* defined by the VM side */
typedef struct rx_jit rx_jit;

/* 1 when this build and CPU have a JIT backend, else 0. */
int  rx_jit_supported(void);
/* flags: the VM's RX_FLAG_* (V2, SECURE, HARD_AES/SOFT_AES, FULL). */
int  rx_jit_new(rx_jit **out, unsigned flags);
/* Compile one program for the given state's configuration. */
int  rx_jit_compile(rx_jit *jit, const struct rx_program *prog, const struct rx_vm_state *state);
/* Run the compiled program (all its iterations) on state. */
int  rx_jit_run(rx_jit *jit, struct rx_vm_state *state);
/* Make writable, wipe, unmap.  NULL ignored. */
void rx_jit_free(rx_jit *jit);
#endif
