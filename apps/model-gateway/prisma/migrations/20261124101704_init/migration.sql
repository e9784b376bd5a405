-- CreateEnum
CREATE TYPE "Environment" AS ENUM ('production', 'test');

-- CreateEnum
CREATE TYPE "LimitReset" AS ENUM ('daily', 'weekly', 'monthly');

-- CreateTable
CREATE TABLE "api_keys" (
    "hash" TEXT NOT NULL,
    "organization_id" UUID NOT NULL,
    "environment" "Environment" NOT NULL DEFAULT 'production',
    "name" TEXT,
    "label" TEXT NOT NULL,
    "limit_micros" BIGINT,
    "limit_reset" "LimitReset",
    "allowed_models" TEXT[],
    "allowed_models_set" BOOLEAN NOT NULL DEFAULT false,
    "routing_policy_id" UUID,
    "disabled" BOOLEAN NOT NULL DEFAULT false,
    "creator_user_id" TEXT,
    "project_id" UUID,
    "customer_id" UUID,
    "rate_limit_rpm" INTEGER,
    "expires_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "api_keys_pkey" PRIMARY KEY ("hash")
);

-- CreateTable
CREATE TABLE "projects" (
    "id" UUID NOT NULL,
    "organization_id" UUID NOT NULL,
    "environment" "Environment" NOT NULL DEFAULT 'production',
    "name" TEXT NOT NULL,
    "budget_micros" BIGINT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "projects_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "customers" (
    "organization_id" UUID NOT NULL,
    "id" UUID NOT NULL,
    "name" TEXT,
    "budget_micros" BIGINT,
    "active" BOOLEAN NOT NULL DEFAULT true,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "customers_pkey" PRIMARY KEY ("organization_id","id")
);

-- CreateTable
CREATE TABLE "vendor_keys" (
    "organization_id" UUID NOT NULL,
    "vendor" TEXT NOT NULL,
    "sealed_key" TEXT NOT NULL,
    "base_url" TEXT,
    "last4" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "vendor_keys_pkey" PRIMARY KEY ("organization_id","vendor")
);

-- CreateTable
CREATE TABLE "tags" (
    "id" UUID NOT NULL,
    "organization_id" UUID NOT NULL,
    "key" TEXT NOT NULL,
    "value" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "tags_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "blocked_models" (
    "organization_id" UUID NOT NULL,
    "pattern" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "blocked_models_pkey" PRIMARY KEY ("organization_id","pattern")
);

-- CreateTable
CREATE TABLE "usage_records" (
    "id" UUID NOT NULL,
    "organization_id" UUID NOT NULL,
    "environment" "Environment" NOT NULL,
    "key_hash" TEXT NOT NULL,
    "project_id" UUID,
    "customer_id" UUID,
    "surface" TEXT NOT NULL,
    "model" TEXT NOT NULL,
    "vendor" TEXT,
    "outcome" TEXT NOT NULL,
    "error_code" TEXT,
    "status" INTEGER NOT NULL,
    "stream" BOOLEAN NOT NULL,
    "byok" BOOLEAN NOT NULL,
    "input_tokens" INTEGER NOT NULL,
    "cached_input_tokens" INTEGER NOT NULL,
    "cache_write_tokens" INTEGER NOT NULL,
    "output_tokens" INTEGER NOT NULL,
    "reasoning_tokens" INTEGER NOT NULL,
    "usage_estimated" BOOLEAN NOT NULL,
    "cost_micros" BIGINT NOT NULL,
    "tags" JSONB NOT NULL,
    "latency_ms" INTEGER NOT NULL,
    "ttft_ms" INTEGER,
    "spend_epoch" TEXT,
    "counted_at" TIMESTAMPTZ(3),
    "counted_model_request" BOOLEAN NOT NULL DEFAULT false,
    "counted_in_rate_limit" BOOLEAN NOT NULL DEFAULT false,
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    "day" DATE NOT NULL,

    CONSTRAINT "usage_records_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "event_outbox" (
    "id" UUID NOT NULL,
    "queue" TEXT NOT NULL,
    "job_name" TEXT NOT NULL,
    "payload" JSONB NOT NULL,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "last_error" TEXT,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "next_attempt_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "event_outbox_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "api_keys_organization_id_created_at_idx" ON "api_keys"("organization_id", "created_at");

-- CreateIndex
CREATE INDEX "projects_organization_id_created_at_idx" ON "projects"("organization_id", "created_at");

-- CreateIndex
CREATE UNIQUE INDEX "tags_organization_id_key_value_key" ON "tags"("organization_id", "key", "value");

-- CreateIndex
CREATE INDEX "usage_records_organization_id_environment_day_idx" ON "usage_records"("organization_id", "environment", "day");

-- CreateIndex
CREATE INDEX "usage_records_key_hash_created_at_idx" ON "usage_records"("key_hash", "created_at");

-- CreateIndex
CREATE INDEX "usage_records_organization_id_spend_epoch_idx" ON "usage_records"("organization_id", "spend_epoch");

-- CreateIndex
CREATE INDEX "event_outbox_next_attempt_at_idx" ON "event_outbox"("next_attempt_at");
