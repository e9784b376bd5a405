/**
 * Country text as platforms send it (an ISO code, an English or local name, a common variant typed
 * into a free-text field) onto ISO 3166-1 alpha-2, as Merge's CountryEnum; anything else becomes
 * `MERGE_NONSTANDARD_VALUE`.
 */

export const NONSTANDARD_COUNTRY = 'MERGE_NONSTANDARD_VALUE';

/** Every officially assigned ISO 3166-1 alpha-2 code (249). */
const ISO_CODES = (
  'AD AE AF AG AI AL AM AO AQ AR AS AT AU AW AX AZ BA BB BD BE BF BG BH BI BJ BL BM BN BO BQ BR BS BT BV BW BY BZ ' +
  'CA CC CD CF CG CH CI CK CL CM CN CO CR CU CV CW CX CY CZ DE DJ DK DM DO DZ EC EE EG EH ER ES ET FI FJ FK FM FO FR ' +
  'GA GB GD GE GF GG GH GI GL GM GN GP GQ GR GS GT GU GW GY HK HM HN HR HT HU ID IE IL IM IN IO IQ IR IS IT JE JM JO JP ' +
  'KE KG KH KI KM KN KP KR KW KY KZ LA LB LC LI LK LR LS LT LU LV LY MA MC MD ME MF MG MH MK ML MM MN MO MP MQ MR MS MT ' +
  'MU MV MW MX MY MZ NA NC NE NF NG NI NL NO NP NR NU NZ OM PA PE PF PG PH PK PL PM PN PR PS PT PW PY QA RE RO RS RU RW ' +
  'SA SB SC SD SE SG SH SI SJ SK SL SM SN SO SR SS ST SV SX SY SZ TC TD TF TG TH TJ TK TL TM TN TO TR TT TV TW TZ UA UG ' +
  'UM US UY UZ VA VC VE VG VI VN VU WF WS YE YT ZA ZM ZW'
).split(' ');

/** Names and variants people type that the locale data below does not give. Keys are normalised (see `normalise`). */
const VARIANTS: Record<string, string> = {
  usa: 'US', 'u s': 'US', 'u s a': 'US', 'united states of america': 'US', america: 'US', 'the united states': 'US', 'united states': 'US', estadosunidos: 'US',
  uk: 'GB', 'u k': 'GB', 'great britain': 'GB', britain: 'GB', england: 'GB', scotland: 'GB', wales: 'GB', 'northern ireland': 'GB', 'united kingdom of great britain and northern ireland': 'GB',
  deutschland: 'DE', 'federal republic of germany': 'DE',
  nippon: 'JP', nihon: 'JP',
  bharat: 'IN', hindustan: 'IN',
  brasil: 'BR',
  holland: 'NL', 'the netherlands': 'NL',
  'south korea': 'KR', korea: 'KR', 'republic of korea': 'KR', 'korea republic of': 'KR', 'korea south': 'KR',
  'north korea': 'KP', 'korea north': 'KP', 'democratic peoples republic of korea': 'KP',
  russia: 'RU', 'russian federation': 'RU',
  'czech republic': 'CZ', czechia: 'CZ',
  'ivory coast': 'CI', 'cote divoire': 'CI',
  vatican: 'VA', 'vatican city': 'VA', 'holy see': 'VA',
  macau: 'MO', macao: 'MO',
  burma: 'MM', myanmar: 'MM',
  swaziland: 'SZ', eswatini: 'SZ',
  'cape verde': 'CV', 'cabo verde': 'CV',
  'east timor': 'TL', 'timor leste': 'TL',
  turkey: 'TR', turkiye: 'TR',
  'republic of ireland': 'IE', eire: 'IE',
  uae: 'AE', 'u a e': 'AE', emirates: 'AE',
  'mainland china': 'CN', prc: 'CN', 'peoples republic of china': 'CN',
  'republic of china': 'TW', taiwan: 'TW',
  'hong kong sar': 'HK', 'hong kong sar china': 'HK',
  vietnam: 'VN', 'viet nam': 'VN',
  laos: 'LA', 'lao pdr': 'LA',
  syria: 'SY', iran: 'IR', bolivia: 'BO', venezuela: 'VE', tanzania: 'TZ', moldova: 'MD', palestine: 'PS',
  'macedonia': 'MK', 'north macedonia': 'MK',
  'dr congo': 'CD', drc: 'CD', 'democratic republic of the congo': 'CD', 'congo kinshasa': 'CD', 'republic of the congo': 'CG', 'congo brazzaville': 'CG',
  'st kitts and nevis': 'KN', 'st lucia': 'LC', 'st vincent and the grenadines': 'VC', 'saint barthelemy': 'BL', 'st barthelemy': 'BL',
  'micronesia': 'FM', 'federated states of micronesia': 'FM',
  'falkland islands': 'FK', 'the bahamas': 'BS', 'the gambia': 'GM', 'the philippines': 'PH',
  'us virgin islands': 'VI', 'british virgin islands': 'VG', 'bosnia': 'BA', 'bosnia herzegovina': 'BA',
  'trinidad': 'TT', 'antigua': 'AG', 'kyrgyzstan': 'KG', 'slovak republic': 'SK', 'brunei': 'BN',
};

/** Locales whose country names are recognised besides English (names people type in their own language). */
const NAME_LOCALES = ['en', 'de', 'fr', 'es', 'pt', 'it', 'nl'];

/** Lower case, accents and punctuation gone, single spaces: "Côte d'Ivoire" and "cote divoire" meet. */
function normalise(text: string): string {
  return text
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/&/g, ' and ')
    .replace(/['\u2019]/g, '')
    .replace(/[^a-z0-9]+/g, ' ')
    .trim();
}

let table: Map<string, string> | undefined;

function byName(): Map<string, string> {
  if (table) return table;
  const t = new Map<string, string>();
  for (const locale of NAME_LOCALES) {
    const names = new Intl.DisplayNames([locale], { type: 'region', fallback: 'none' });
    for (const code of ISO_CODES) {
      const name = names.of(code);
      if (name) {
        const key = normalise(name);
        // The first locale to claim a name keeps it (English first).
        if (!t.has(key)) t.set(key, code);
      }
    }
  }
  for (const [name, code] of Object.entries(VARIANTS)) t.set(normalise(name), code);
  table = t;
  return t;
}

const CODES = new Set(ISO_CODES);

/**
 * ISO 3166-1 alpha-2 for a platform's country text; `MERGE_NONSTANDARD_VALUE` when it names no
 * country; null for nothing (null, undefined, blank).
 */
export function toCountryCode(raw: unknown): string | null {
  if (typeof raw !== 'string') return null;
  const text = raw.trim();
  if (text === '') return null;
  if (/^[A-Za-z]{2}$/.test(text)) {
    const code = text.toUpperCase();
    if (CODES.has(code)) return code;
    // "UK" is what people type for GB.
    if (code === 'UK') return 'GB';
    return NONSTANDARD_COUNTRY;
  }
  return byName().get(normalise(text)) ?? NONSTANDARD_COUNTRY;
}

/** Every alpha-2 code this table can produce (for tests and validation). */
export function isoCountryCodes(): readonly string[] {
  return ISO_CODES;
}
