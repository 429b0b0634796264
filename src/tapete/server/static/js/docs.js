// The API's page (/docs): Swagger UI, started from this file rather than from a script inside the page
// (the server's Content-Security-Policy allows no inline script). The document's address is the page's
// data-url attribute.
const root = document.getElementById("swagger-ui");
window.ui = SwaggerUIBundle({
  url: root.dataset.url,
  dom_id: "#swagger-ui",
  layout: "BaseLayout",
  deepLinking: true,
  showExtensions: true,
  showCommonExtensions: true,
  presets: [SwaggerUIBundle.presets.apis, SwaggerUIBundle.SwaggerUIStandalonePreset],
});
