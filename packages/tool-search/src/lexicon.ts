/**
 * What the words of this domain mean. Users say "meeting", tools say "event"; users say "PR",
 * tools say "pull request". The lexicon is about the vocabulary of the products, not about any
 * one tool, so custom tools that use the same words benefit from it too.
 */
import { stem } from './text';

/** What an intent wants done, and what a tool does. `execute` runs something arbitrary (a request, a statement). */
export type ActionClass = 'read' | 'create' | 'change' | 'delete' | 'execute';
/** Among reading tools: many items, one item by its id, or items matching a query. */
export type ReadKind = 'list' | 'get' | 'search';

export interface VerbSense {
  action: ActionClass;
  readKind?: ReadKind;
  /**
   * Also an ordinary noun or adjective ("file", "email", "open", "post"): it counts as a verb only
   * where a request starts (first word, or after "and", "then", "to", "please").
   */
  leadingOnly?: boolean;
}

const verbList: Array<[string[], VerbSense]> = [
  [['show', 'display', 'view', 'see', 'list', 'fetch', 'retrieve', 'read', 'check', 'browse', 'tellme', 'summarize', 'summarise', 'count', 'howmany', 'isthere', 'catchup'], { action: 'read' }],
  [['list', 'enumerate'], { action: 'read', readKind: 'list' }],
  [['get', 'describe', 'inspect', 'detail', 'details', 'lookup'], { action: 'read', readKind: 'get' }],
  [['find', 'search', 'lookfor', 'locate', 'grep', 'filter'], { action: 'read', readKind: 'search' }],
  [['pull', 'query', 'review', 'what', 'which', 'who', 'whose', 'when', 'where', 'did', 'does', 'is', 'are', 'any'], { action: 'read', leadingOnly: true }],
  [['explain'], { action: 'read', readKind: 'get' }],
  [['create', 'add', 'make', 'new', 'raise', 'submit', 'send', 'write', 'compose', 'schedule', 'book', 'setup', 'invite', 'append', 'insert', 'ping', 'notify', 'letknow', 'share', 'leave', 'blockout', 'dm', 'announce', 'react', 'upload', 'publish'], { action: 'create' }],
  [['file', 'log', 'post', 'email', 'mail', 'message', 'reply', 'respond', 'answer', 'comment', 'note', 'draft', 'record', 'put', 'tell', 'open', 'start', 'thumbsup'], { action: 'create', leadingOnly: true }],
  [['update', 'edit', 'change', 'modify', 'rename', 'move', 'reschedule', 'postpone', 'assign', 'unassign', 'reassign', 'reopen', 'transition', 'bump', 'fix', 'replace', 'resolve', 'mark', 'archive', 'unarchive', 'rewrite', 'correct', 'adjust', 'promote'], { action: 'change' }],
  [['set', 'close', 'star', 'label', 'tag', 'flag', 'push'], { action: 'change', leadingOnly: true }],
  [['delete', 'remove', 'cancel', 'drop', 'trash', 'erase', 'destroy', 'purge', 'unschedule'], { action: 'delete' }],
  [['run', 'execute', 'call', 'hit', 'invoke', 'exec'], { action: 'execute', leadingOnly: true }],
];

/** Verb senses by stemmed word; the last list a word appears in wins (so `list` keeps its read kind). */
export const VERBS = new Map<string, VerbSense>();
for (const [words, sense] of verbList) for (const word of words) VERBS.set(stem(word), sense);
/**
 * Verbs whose word, used as a verb, says nothing about what to act on: "file a bug" has nothing to
 * do with files, "log a call" nothing with logs. Their action still counts.
 */
export const CONTENTLESS_VERBS = new Set(['file', 'log', 'open', 'record', 'put', 'start', 'raise', 'make', 'leave', 'hit', 'pull', 'submit', 'call', 'tell', 'let', 'check', 'show', 'see', 'view', 'display', 'give', 'bump', 'fix', 'push', 'flag'].map(stem));

/** Words of tool names that every connector uses for its basic operations: they do not say what a tool is about. */
export const GENERIC_NAME_WORDS = new Set(['list', 'get', 'create', 'add', 'update', 'delete', 'remove', 'run', 'execute', 'set', 'modify', 'fetch', 'read', 'new', 'make', 'do', 'http', 'api', 'by', 'for', 'to', 'of', 'all', 'one', 'item', 'items'].map(stem));

// "open" before an article creates ("open a ticket"); before a determiner it reads ("open that email").
export const OPEN_READS_BEFORE = new Set(['the', 'that', 'this', 'my', 'it', 'those', 'these', 'his', 'her', 'their', 'our']);
export const NEGATIONS = new Set(['dont', 'not', 'never', 'without', 'no', 'doesnt', 'didnt', 'nt']);
/** Words after which a new request starts: "summarize X and post it to Notion". */
export const CLAUSE_STARTS = new Set(['and', 'then', 'to', 'please', 'also', 'plus', 'i', 'we', 'can', 'could', 'would', 'you', 'pls', 'just', 'lets', 'let', 'need', 'want', 'should', 'quickly', 'go', 'help', 'me', 'us', 'kindly', 'now', 'first', 'next', 'after', 'before', 'so', 'still']);

/**
 * Words of a tool's name (or first word of its description) that say what the tool does. Only the
 * tool side: a tool named `add_reaction` creates, one named `modify_labels` changes.
 */
const toolVerbList: Array<[string[], ActionClass, ReadKind?]> = [
  [['list', 'enumerate', 'browse'], 'read', 'list'],
  [['get', 'read', 'describe', 'fetch', 'show', 'retrieve', 'view', 'lookup', 'explain', 'inspect', 'download'], 'read', 'get'],
  [['search', 'query', 'find', 'filter', 'lookfor'], 'read', 'search'],
  [['create', 'add', 'post', 'send', 'append', 'insert', 'log', 'new', 'draft', 'write', 'open', 'file', 'submit', 'upload', 'invite', 'schedule', 'book', 'compose', 'publish', 'reply', 'comment', 'make', 'start'], 'create'],
  [['update', 'modify', 'set', 'edit', 'change', 'transition', 'move', 'rename', 'patch', 'assign', 'close', 'archive', 'mark', 'replace', 'label', 'tag', 'merge', 'reopen', 'resolve', 'upsert'], 'change'],
  [['delete', 'remove', 'cancel', 'drop', 'trash', 'destroy', 'purge', 'revoke'], 'delete'],
  [['run', 'execute', 'call', 'invoke', 'request', 'exec'], 'execute'],
];
export const TOOL_VERBS = new Map<string, { action: ActionClass; readKind?: ReadKind }>();
for (const [words, action, readKind] of toolVerbList) for (const word of words) TOOL_VERBS.set(stem(word), readKind ? { action, readKind } : { action });

/**
 * Query term → document terms it may appear as, with a closeness in [0, 1]. The query term itself
 * always counts fully. Expansions go one way: a user's "meeting" finds a tool's "event", and a tool
 * that says "meeting" is still found by "meeting" itself.
 */
const synonymList: Array<[string[], Record<string, number>]> = [
  // Mail
  [['email', 'mail', 'emails', 'inbox', 'gmail', 'mailbox', 'sent', 'newsletter', 'newsletters', 'emailed'], { email: 1, mail: 1, gmail: 0.9, message: 0.8 }],
  [['emailaddressmarker'], { email: 0.35 }],
  [['message', 'msg', 'messages'], { message: 1 }],
  [['dm'], { message: 0.9, slack: 0.6, im: 0.5 }],
  [['chat', 'chatted'], { slack: 0.8, message: 0.7, channel: 0.5 }],
  [['ping', 'notify', 'letknow', 'announce', 'announcement', 'tell'], { message: 0.7, post: 0.6, channel: 0.4 }],
  [['body', 'text', 'content'], { body: 1, text: 0.8, content: 0.8 }],
  [['attachment', 'attachments', 'attached', 'attach', 'pdf'], { attachment: 1 }],
  [['unread', 'readstate'], { unread: 1, label: 0.3 }],
  [['archive'], { archive: 1, inbox: 0.5 }],
  [['star', 'starred'], { star: 1, starred: 1 }],
  [['draft', 'drafts'], { draft: 1 }],
  [['sender', 'recipient', 'recipients'], { from: 0.6, to: 0.6, sender: 1 }],
  // Calendar
  [['meeting', 'meetings', 'appointment', 'standup', 'sync', 'oneononemarker', 'retro', 'lunch', 'offsite', 'interview', 'webinar', 'blockout'], { event: 0.9, calendar: 0.5, meet: 0.4 }],
  [['invite', 'invitation', 'invitations', 'invites'], { event: 1, attendee: 0.8 }],
  [['call'], { event: 0.5, call: 1 }],
  [['calendar', 'calendars', 'gcal', 'agenda', 'cal', 'diary'], { calendar: 1, event: 0.5 }],
  [['event', 'events'], { event: 1 }],
  [['busy', 'free', 'availability', 'available'], { free: 1, event: 0.6, calendar: 0.5 }],
  [['reschedule', 'postpone'], { event: 0.7, start: 0.5, update: 0.5 }],
  [['attendee', 'attendees', 'attend', 'attended', 'guest', 'guests', 'participant', 'participants', 'accepted', 'rsvp'], { attendee: 1, response: 0.6 }],
  [['clocktimemarker', 'hour', 'hours', 'minute', 'minutes', 'min', 'mins', 'week', 'tomorrow', 'tonight', 'morning', 'afternoon', 'evening', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday', 'weekend'], { time: 0.4, event: 0.3, start: 0.3 }],
  [['zoom', 'meet', 'hangout', 'videocall'], { meet: 1, link: 0.5, event: 0.4 }],
  // Issues and tickets
  [['ticket', 'tickets'], { ticket: 1, issue: 0.6 }],
  [['issue', 'issues'], { issue: 1, ticket: 0.5 }],
  [['bug', 'bugs', 'defect', 'crash', 'regression'], { bug: 1, issue: 0.8, ticket: 0.5 }],
  [['story', 'stories', 'epic', 'task', 'tasks', 'todo', 'chore'], { issue: 0.6, task: 0.8, story: 0.8 }],
  [['subissue', 'subtask', 'subtasks', 'child'], { parent: 0.9, subtask: 1, issue: 0.5 }],
  [['issuekeymarker'], { issuekeymarker: 1, issue: 0.7, key: 0.5 }],
  [['pullrequest', 'pr', 'prs', 'mr'], { pullrequest: 1 }],
  [['diff', 'mergeable', 'merge', 'merged', 'reviewer', 'reviewers', 'approved'], { pullrequest: 0.7, merge: 0.8, review: 0.6 }],
  [['repo', 'repos', 'repository', 'repositories', 'codebase'], { repository: 0.9 }],
  [['ownerrepomarker'], { repository: 0.8, owner: 0.6, github: 0.6 }],
  [['file', 'files', 'readme', 'source', 'code', 'filepathmarker', 'directory', 'folder', 'config'], { file: 1, content: 0.6, path: 0.5 }],
  [['branch', 'branches', 'ref', 'commit', 'sha'], { branch: 1, ref: 0.7 }],
  [['comment', 'comments', 'reply', 'replies', 'respond', 'response', 'answer', 'replying'], { comment: 1, reply: 0.8, conversation: 0.5 }],
  [['note', 'notes'], { note: 1, comment: 0.6 }],
  [['conversation', 'history', 'discussion', 'thread', 'said', 'catchup', 'backlog'], { conversation: 0.8, history: 1, thread: 0.7, message: 0.6, comment: 0.5 }],
  [['label', 'labels', 'tag', 'tags'], { label: 1, tag: 0.9 }],
  [['status', 'state', 'stage', 'column'], { status: 1, state: 0.9, transition: 0.5 }],
  [['done', 'inprogress', 'inreview', 'resolved', 'solved', 'closed', 'complete', 'completed', 'finished', 'blocked', 'backlog', 'todo'], { status: 0.7, state: 0.6, transition: 0.6 }],
  [['transition', 'workflow'], { transition: 1, workflow: 1, status: 0.5 }],
  [['priority', 'urgent', 'p0', 'p1', 'critical', 'prioritize'], { priority: 1 }],
  [['assign', 'assignee', 'assigned', 'unassign', 'owner', 'reassign'], { assign: 1, assignee: 1 }],
  [['due', 'deadline'], { due: 1, date: 0.4 }],
  [['project', 'projects', 'projectkey', 'space'], { project: 1 }],
  [['team', 'teams', 'squad', 'teamid', 'teamkey'], { team: 1 }],
  // Chat
  [['channel', 'channels', 'channelmarker', 'room'], { channel: 1, slack: 0.4 }],
  [['reaction', 'react', 'emoji', 'emojimarker', 'thumbsup', 'emote'], { reaction: 1, emoji: 1 }],
  [['user', 'users', 'member', 'members', 'people', 'person', 'colleague', 'colleagues', 'teammate', 'teammates', 'coworker', 'employee', 'everyone', 'userid'], { user: 1, member: 0.8 }],
  [['identifiermarker'], { id: 0.4 }],
  [['workspace', 'org', 'organization'], { workspace: 1, organization: 0.8 }],
  [['timezone', 'tz'], { timezone: 1, zone: 0.8 }],
  [['bot'], { bot: 1 }],
  [['typo', 'wording'], { text: 0.6, update: 0.4 }],
  // CRM
  [['contact', 'contacts', 'lead', 'leads', 'client', 'clients', 'prospect', 'prospects'], { contact: 1, lifecyclestage: 0.4 }],
  [['customer', 'customers'], { customer: 1, contact: 0.7, requester: 0.6 }],
  [['deal', 'deals', 'opportunity', 'opportunities', 'opp', 'opps'], { deal: 1 }],
  [['pipeline', 'forecast'], { pipeline: 1, deal: 0.7 }],
  [['crm'], { hubspot: 1, crm: 1, contact: 0.4 }],
  [['timeline', 'activity', 'summary', 'recap'], { timeline: 0.8, note: 0.5 }],
  [['phone', 'mobile', 'jobtitle', 'firstname', 'lastname', 'lifecyclestage'], { property: 0.4 }],
  // Documents
  [['page', 'pages', 'doc', 'docs', 'document', 'documents', 'wiki', 'runbook', 'article', 'writeup', 'spec', 'notebook', 'postmortem'], { page: 1, notion: 0.4 }],
  [['paragraph', 'paragraphs', 'block', 'blocks', 'bottom', 'end', 'section'], { paragraph: 1, block: 0.8, append: 0.5 }],
  [['row', 'rows', 'entry', 'entries', 'record', 'records', 'item', 'items'], { row: 1, database: 0.3, page: 0.3 }],
  [['property', 'properties', 'field', 'fields', 'attribute'], { property: 1 }],
  // Databases
  [['database', 'databases', 'db', 'dbs', 'datastore', 'warehouse'], { database: 1 }],
  [['table', 'tables', 'view', 'views'], { table: 1 }],
  [['column', 'columns', 'schema', 'schemas', 'foreignkey', 'primarykey', 'ddl', 'type', 'types', 'nullable'], { column: 1, schema: 0.8, key: 0.5 }],
  [['sql', 'sqlmarker', 'select', 'statement'], { sql: 1, query: 0.6, statement: 0.6 }],
  [['query', 'queries'], { query: 1, sql: 0.6 }],
  [['plan', 'index', 'indexes', 'slow', 'performance', 'explain', 'optimize'], { plan: 1, explain: 0.8, index: 0.7 }],
  // Questions about figures are answered by running a query.
  [['signup', 'revenue', 'count', 'total', 'average', 'sum', 'top', 'metric', 'metrics', 'howmany', 'aggregate', 'mrr', 'churn'], { query: 0.8, statement: 0.6, sql: 0.5, row: 0.5 }],
  // HTTP
  [['api', 'restapi', 'rest', 'endpoint', 'endpoints', 'webhook', 'webhooks', 'http', 'https', 'url', 'urlpathmarker'], { http: 1, api: 1, path: 0.6 }],
  [['httpmethod'], { http: 1, method: 1, request: 0.6 }],
  [['json', 'payload'], { json: 1, body: 0.6, http: 0.4 }],
  [['request', 'requests'], { request: 1 }],
  [['urlmarker'], { url: 1, id: 0.3 }],
];

export const SYNONYMS = new Map<string, Map<string, number>>();
for (const [words, expansions] of synonymList) {
  for (const word of words) {
    const key = stem(word);
    const map = SYNONYMS.get(key) ?? new Map<string, number>();
    for (const [target, weight] of Object.entries(expansions)) {
      const term = stem(target);
      if (term === key) continue;
      map.set(term, Math.max(map.get(term) ?? 0, weight));
    }
    SYNONYMS.set(key, map);
  }
}

/**
 * Extra words for the connector field of built-in connectors: what people call the product and
 * its domain. A custom connector has only its name and slug.
 */
export const CONNECTOR_KEYWORDS: Record<string, string> = {
  github: 'github git repository code pull request issue developer',
  gmail: 'gmail email mail inbox google',
  'google-calendar': 'google calendar event meeting schedule agenda',
  hubspot: 'hubspot crm sales contact deal customer',
  http: 'generic http https json api rest endpoint url webhook request',
  jira: 'jira atlassian ticket issue jql project',
  linear: 'linear issue ticket team',
  notion: 'notion wiki page doc database knowledge',
  postgresql: 'postgresql postgres sql database db table',
  slack: 'slack chat channel message workspace',
  zendesk: 'zendesk support helpdesk ticket customer',
};

/**
 * Words that, in an intent, name a product: "in Jira", "on Slack". `weak` words name it only
 * sometimes ("calendar" is also a Notion content calendar). Built-in connectors by slug; custom
 * connectors get the distinctive words of their own name and slug.
 */
export const CONNECTOR_ALIASES: Record<string, { strong: string[]; weak?: string[] }> = {
  github: { strong: ['github', 'gh', 'ghe'] },
  gmail: { strong: ['gmail', 'googlemail'] },
  'google-calendar': { strong: ['gcal'], weak: ['calendar', 'calendars'] },
  hubspot: { strong: ['hubspot'] },
  http: { strong: [] },
  jira: { strong: ['jira', 'jql', 'atlassian'] },
  linear: { strong: ['linear'] },
  notion: { strong: ['notion'] },
  postgresql: { strong: ['postgresql', 'postgres', 'psql', 'pg'] },
  slack: { strong: ['slack'] },
  zendesk: { strong: ['zendesk', 'zd'] },
};
/** How much a weak alias counts against a strong one. */
export const WEAK_ALIAS_STRENGTH = 0.5;

/** Words of connector names that say nothing about which product is meant. */
export const GENERIC_CONNECTOR_WORDS = new Set(
  'api apis mcp server servers tool tools custom connector connectors generic http https json rest app apps service services integration cloud online the and for of my our google microsoft'.split(' '),
);
