import { HUBSPOT_FAKE_TOKENS, startFakeHubspot, type FakeHubspot } from '@patchbay/provider-fakes';
import { runSync, verifyCredentials } from './index';
import { MemorySink } from './testing/memory-sink';
import type { PlatformConnection, SyncTuning } from './types';

let hs: FakeHubspot;
const fast: SyncTuning = { baseBackoffMs: 1, maxBackoffMs: 5 };

beforeEach(async () => {
  hs = await startFakeHubspot();
});
afterEach(async () => {
  await hs.close();
});

const conn = (token: string = HUBSPOT_FAKE_TOKENS.valid): PlatformConnection => ({ platform: 'hubspot', credentials: { access_token: token }, baseUrl: hs.baseUrl });

describe('HubSpot marketing events', () => {
  it('pages every event and every participation to the end, 100 a page, with the CRM contact behind each', async () => {
    hs.portal.seed({ events: 250, participantsPerEvent: 130 });
    const sink = new MemorySink();
    const outcome = await runSync({ conn: conn(), kind: 'full', modifiedSince: null, checkpoint: null, fieldMappings: [], sink, tuning: fast });
    expect(outcome).toEqual({ kind: 'done', completeFullPass: true, passId: expect.any(String) });
    expect(sink.events.size).toBe(250);
    expect(sink.links.size).toBe(250 * 130);
    expect(sink.duplicates()).toEqual([]);
    const eventLists = hs.requests.filter((r) => r.path.startsWith('/marketing/v3/marketing-events') && !r.path.includes('participations'));
    expect(eventLists.map((r) => r.query.get('limit'))).toEqual(['100', '100', '100']);
  });
});
