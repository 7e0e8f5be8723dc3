/**
 * The hub the card asks (HUB_PUBLIC_URL of your `verify-hub serve`). HubSpot only lets a card fetch
 * URLs listed in app-hsmeta.json's `permittedUrls.fetch`: change both together (a test checks they agree).
 */
export const HUB_URL = 'https://verify-hub.example.com';
