// MemoryStore: the shared EventStore contract, without files.
import { MemoryStore } from '../../../src/store/memory/memory-store.js';
import { storeContract } from '../store-contract.js';

storeContract('MemoryStore', async () => new MemoryStore());
