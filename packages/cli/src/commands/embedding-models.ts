import { dnabertDescriptor } from '@virnucpro/dnabert';
import { esm2Descriptor } from '@virnucpro/esm2';
import type { EmbeddingModelDescriptor } from '@virnucpro/ops';

/** The models `embed <model>` and `convert <model>` offer, in help order: one line per model package. */
export const embeddingModels: readonly EmbeddingModelDescriptor[] = [esm2Descriptor, dnabertDescriptor];

/** "esm2 or dnabert", for the message that asks for a model. */
export const embeddingModelNames = embeddingModels.map((m) => m.name).join(' or ');
