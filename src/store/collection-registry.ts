import type { CollectionDef } from './schema';
import { foundationCollections } from './collections/foundation';
import { gatewayCollections } from './collections/gateway';
import { receivablesCollections } from './collections/receivables';

/**
 * Every collection of the database, in one list. Each domain adds its collection module here.
 * Keep the total under RxDB open core's 13 open collections per process.
 */
export const allCollections: CollectionDef[] = [...foundationCollections, ...receivablesCollections, ...gatewayCollections];
