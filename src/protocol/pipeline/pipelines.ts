import { compose } from '../../contracts/middleware';
import type { HandlerRef } from '../../registry/descriptors';
import type { Call } from './call';
import { type CallStep, OWN_APPLICATION_FROM, type Stage, STAGES, type StageSuppliers } from './stages';

type Chain = (call: Call) => Promise<unknown>;

/** The end of every chain: the `invoke` stage answers, so this is reached only by a chain without one. */
const NO_HANDLER = (call: Call): Promise<never> => Promise.reject(new Error(`${call.handler} has no invoke step`));

/**
 * Every handler's pipeline, composed once from the stages' suppliers (see stages.ts): when the registry
 * is built, and again for what changed. A call runs its handler's chain and nothing else.
 */
export class Pipelines {
  private readonly suppliers: StageSuppliers = {};
  private readonly chains = new WeakMap<HandlerRef, Chain>();
  private readonly tails = new WeakMap<HandlerRef, Chain>();

  /** Each stage has one supplier: a second is a mistake in wiring mcpkit, refused here. */
  supply(suppliers: StageSuppliers): void {
    for (const stage of Object.keys(suppliers) as Stage[]) {
      if (this.suppliers[stage]) throw new Error(`The ${stage} stage has two suppliers`);
      this.suppliers[stage] = suppliers[stage];
    }
  }

  /** Runs a call through its handler's chain. */
  run(call: Call): Promise<unknown> {
    return this.chain(call.ref, this.chains, STAGES)(call);
  }

  /** Runs the part of `ref`'s chain that belongs to its own application (see OWN_APPLICATION_FROM). */
  runOwn(call: Call): Promise<unknown> {
    return this.chain(call.ref, this.tails, STAGES.slice(STAGES.indexOf(OWN_APPLICATION_FROM)))(call);
  }

  /** Composes the chains of these handlers that have none yet (they are new). */
  prepare(refs: Iterable<HandlerRef>): void {
    for (const ref of refs) if (!this.chains.has(ref)) this.chains.set(ref, this.compose(ref, STAGES));
  }

  /** Composes the chains of these handlers anew (what their stages depend on changed). */
  rebuild(refs: Iterable<HandlerRef>): void {
    for (const ref of refs) {
      this.chains.set(ref, this.compose(ref, STAGES));
      this.tails.delete(ref);
    }
  }

  private chain(ref: HandlerRef, chains: WeakMap<HandlerRef, Chain>, stages: readonly Stage[]): Chain {
    let chain = chains.get(ref);
    if (!chain) chains.set(ref, (chain = this.compose(ref, stages)));
    return chain;
  }

  private compose(ref: HandlerRef, stages: readonly Stage[]): Chain {
    const steps: CallStep[] = [];
    for (const stage of stages) {
      const made = this.suppliers[stage]?.(ref);
      if (made === undefined) continue;
      if (Array.isArray(made)) steps.push(...(made as readonly CallStep[]));
      else steps.push(made as CallStep);
    }
    const run = compose(steps);
    return (call) => run(call, NO_HANDLER);
  }
}
