#!/usr/bin/env node
import { fork } from 'node:child_process';
import { EVENTBRITE_FAKE_TOKENS, startFakeEventbrite } from './eventbrite';
import { HUBSPOT_FAKE_TOKENS, startFakeHubspot } from './hubspot';
import { startFakeZoom } from './zoom';

/**
 * What a page of the marketing fakes costs them: the fakes run in a child process, this process
 * walks `EVENTS` events' participant lists page by page, and only the child's CPU time is counted,
 * per record served. The client's own work (requests, JSON parsing) is left out.
 *
 *   node packages/provider-fakes/dist/page-cost.js [EVENTS=300] [PER_EVENT=100]
 */

interface Info {
  hubspot: string;
  hubspotEvents: string[];
  zoom: string;
  zoomToken: string;
  webinars: number[];
  eventbrite: string;
  eventbriteEvents: string[];
}

async function child(events: number, per: number): Promise<void> {
  const hs = await startFakeHubspot(undefined, { recordRequests: false });
  hs.portal.seed({ events, participantsPerEvent: per });
  const zoom = await startFakeZoom({ recordRequests: false });
  zoom.account.seed({ webinars: events, registrantsPerWebinar: per });
  const eb = await startFakeEventbrite({ recordRequests: false });
  eb.account.seed({ events, attendeesPerEvent: per });
  const info: Info = {
    hubspot: hs.baseUrl,
    hubspotEvents: hs.portal.allEvents().map((e) => e.objectId),
    zoom: zoom.baseUrl,
    zoomToken: zoom.account.issueAccessToken(),
    webinars: zoom.account.allWebinars().map((w) => w.id),
    eventbrite: eb.baseUrl,
    eventbriteEvents: eb.account.allEvents().map((e) => e.id),
  };
  process.send!({ info });
  process.on('message', (m) => {
    if (m === 'cpu') {
      const { user, system } = process.cpuUsage();
      process.send!({ cpu: user + system });
    }
  });
}

async function parent(events: number, per: number): Promise<void> {
  const fakes = fork(__filename, ['--child', String(events), String(per)]);
  const next = <T>() => new Promise<T>((resolve) => fakes.once('message', (m) => resolve(m as T)));
  const { info } = await next<{ info: Info }>();
  const cpu = async () => {
    fakes.send('cpu');
    return (await next<{ cpu: number }>()).cpu;
  };
  const json = async (url: string, token: string) => (await (await fetch(url, { headers: { authorization: `Bearer ${token}` } })).json()) as Record<string, any>;
  const measure = async (label: string, walk: () => Promise<number>) => {
    const before = await cpu();
    const records = await walk();
    const micros = (await cpu()) - before;
    process.stdout.write(`${label.padEnd(40)} ${String(records).padStart(8)} records  ${(micros / 1000).toFixed(0).padStart(6)} ms CPU  ${(micros / records).toFixed(1).padStart(6)} µs/record\n`);
  };

  await measure('HubSpot participations, limit=100', async () => {
    let n = 0;
    for (const id of info.hubspotEvents) {
      let after = '';
      do {
        const page = await json(`${info.hubspot}/marketing/v3/marketing-events/participations/${id}/breakdown?limit=100${after ? `&after=${after}` : ''}`, HUBSPOT_FAKE_TOKENS.valid);
        n += (page.results as unknown[]).length;
        after = (page.paging?.next?.after as string | undefined) ?? '';
      } while (after);
    }
    return n;
  });
  await measure('Zoom registrants, page_size=300', async () => {
    let n = 0;
    for (const id of info.webinars) {
      let token = '';
      do {
        const page = await json(`${info.zoom}/webinars/${id}/registrants?page_size=300${token ? `&next_page_token=${token}` : ''}`, info.zoomToken);
        n += (page.registrants as unknown[]).length;
        token = page.next_page_token as string;
      } while (token);
    }
    return n;
  });
  for (const size of [50, 200]) {
    await measure(`Eventbrite attendees, page_size=${size}`, async () => {
      let n = 0;
      for (const id of info.eventbriteEvents) {
        let continuation = '';
        do {
          const page = await json(`${info.eventbrite}/events/${id}/attendees/?page_size=${size}${continuation ? `&continuation=${continuation}` : ''}`, EVENTBRITE_FAKE_TOKENS.valid);
          n += (page.attendees as unknown[]).length;
          continuation = page.pagination.has_more_items ? (page.pagination.continuation as string) : '';
        } while (continuation);
      }
      return n;
    });
  }
  fakes.kill();
}

const [flag, ...rest] = process.argv.slice(2);
if (flag === '--child') void child(Number(rest[0]), Number(rest[1]));
else void parent(Number(flag ?? 300), Number(rest[0] ?? 100));
