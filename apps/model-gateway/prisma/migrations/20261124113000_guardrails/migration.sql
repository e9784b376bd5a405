-- CreateTable
CREATE TABLE "guardrail_settings" (
    "organization_id" UUID NOT NULL,
    "pi_settings" JSONB,
    "dlp_rules" JSONB,
    "check_enabled" BOOLEAN NOT NULL DEFAULT false,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "guardrail_settings_pkey" PRIMARY KEY ("organization_id")
);

-- CreateTable
CREATE TABLE "customer_pi_overrides" (
    "organization_id" UUID NOT NULL,
    "customer_id" UUID NOT NULL,
    "override" JSONB NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "customer_pi_overrides_pkey" PRIMARY KEY ("organization_id","customer_id")
);
