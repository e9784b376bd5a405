import type { Catalog } from '../catalog/catalog';

/** The platform's own credentials for one vendor (operator's, trusted: the base URL may be local). */
export interface VendorCredential {
  vendor: string;
  apiKey: string;
  baseUrl: string;
}

function envName(vendor: string): string {
  return vendor.toUpperCase().replace(/[^A-Z0-9]/g, '_');
}

/**
 * Reads PATCHBAY_VENDOR_<NAME>_API_KEY and PATCHBAY_VENDOR_<NAME>_BASE_URL for every vendor of the
 * catalog (OPENAI, ANTHROPIC, GOOGLE, and the OpenAI-compatible ones: GROQ, TOGETHER, MISTRAL, or any
 * a deployment's catalog adds). The base URL is written as the vendor's own SDK takes it and defaults
 * to the catalog's. A vendor with no key configured is not offered.
 */
export function platformVendorsFromEnv(catalog: Catalog, env: NodeJS.ProcessEnv = process.env): Map<string, VendorCredential> {
  const configured = new Map<string, VendorCredential>();
  for (const vendor of catalog.vendors.values()) {
    // A self-hosted vendor is each organization's own endpoint: only its vendor key reaches it.
    if (vendor.selfHosted) continue;
    const apiKey = env[`PATCHBAY_VENDOR_${envName(vendor.id)}_API_KEY`]?.trim();
    if (!apiKey) continue;
    const baseUrl = env[`PATCHBAY_VENDOR_${envName(vendor.id)}_BASE_URL`]?.trim() || vendor.defaultBaseUrl;
    try {
      new URL(baseUrl);
    } catch {
      throw new Error(`PATCHBAY_VENDOR_${envName(vendor.id)}_BASE_URL is not a URL: ${baseUrl}`);
    }
    configured.set(vendor.id, { vendor: vendor.id, apiKey, baseUrl: baseUrl.replace(/\/+$/, '') });
  }
  return configured;
}
